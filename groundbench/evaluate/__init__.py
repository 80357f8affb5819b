"""``groundbench eval``: ask a model every row of a published folder through inspect-ai, and score its answers.

- :mod:`.images`: the row's embedded bytes, checked against ``image_sha256``, as a data URI (resized only on request)
- :mod:`.gate`: the gate fields (dataset version, manifest hash) read from the published folder's card
- :mod:`.samples`: rows -> inspect samples (our prompt for the condition, the image, the gate fields)
- :mod:`.task`: the inspect task (also for ``inspect eval groundbench/groundbench``)
- :mod:`.predictions`: one predictions line per answer (raw response kept, resize mapped back)
- :mod:`.cache`: the run folder's answer cache that makes runs resumable
- :mod:`.silence`: a server that stopped answering ends the run (the timeouts' defaults)
- :mod:`.score`: the one call into the scorer
- :mod:`.run`: the command's flow
"""
