"""The audit gallery in a real browser: Debian's Chromium (installed by `make test`), driven headless by
Playwright's Python package over a loopback http.server serving the project's data/ (the gallery shows
the image store's files beside it), and from disk (file://). Never a downloaded browser."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from groundbench.cards.notice import synthetic_notice
from groundbench.core.params import ReportParams
from groundbench.loaders.prompts import build_prompt
from groundbench.review.report.build import build_report
from groundbench.review.rows import iter_rows
from groundbench.schemas.request_conditions import conditions_of
from tests.conftest import run_cli
from tests.support.viz_records import (
    build_gapartnet_project,
    build_umd_project,
    gallery_sources,
    gapartnet_rows,
    gapartnet_sources,
    gui_rows,
)

pytestmark = pytest.mark.slow  # end to end: the gallery in headless Chromium

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CONFIGS = ("curated_umd", "bulk_umd", "handmade_gapartnet", "handmade_gui", "curated_gapartnet", "bulk_gapartnet")
# Several details files per config; pages of 200 thumbnails (more than any config here has, so every
# row of a filter is on its first page) and, in `paged/`, of 25.
PARAMS = ReportParams(thumb_side=160, detail_side=400, rows_per_page=200, rows_per_file=20)
PAGED = ReportParams(thumb_side=160, detail_side=400, rows_per_page=25, rows_per_file=20)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's signature
        pass


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path, gapartnet_rendered: Path) -> Path:
    root = build_umd_project(tmp_path_factory.mktemp("browser") / "project", umd_sample)
    root = build_gapartnet_project(root, gapartnet_rendered)  # the default build's GAPartNet configs, real renders
    assert run_cli(root, "store") == 0
    sources = gallery_sources(root) + gapartnet_sources(root)
    notice = synthetic_notice(list(CONFIGS))
    build_report(root / "data/report", sources, PARAMS, root / "data/images", progress=False, notice=notice)
    build_report(root / "data/paged", sources, PAGED, root / "data/images", progress=False, notice=notice)
    return root


@pytest.fixture(scope="module")
def site(built: Path) -> Iterator[str]:
    """The project's data/ (the galleries and the image store) served on 127.0.0.1 (a free port)."""
    handler = functools.partial(_Quiet, directory=str(built / "data"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM.exists(), "Debian's chromium is missing: `make test` installs it (apt-get install chromium)"
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            yield instance
        finally:
            instance.close()


class Visit:
    """One page with every console error, page error, failed or off-site request recorded. A tall window: every
    thumbnail of a page is in view, so none waits for a scroll (they load lazily)."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.base = base
        self.page: Page = browser.new_page(viewport={"width": 1280, "height": 12000})
        self.problems: list[str] = []
        self.page.on(
            "console", lambda m: self.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None
        )
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        # A thumbnail still loading when the test moves on is aborted, not failed; a missing file is a 404 (below).
        self.page.on(
            "requestfailed",
            lambda r: None if r.failure == "net::ERR_ABORTED" else self.problems.append(f"request failed: {r.url}"),
        )
        self.page.on(
            "request", lambda r: None if r.url.startswith(base) else self.problems.append(f"off-site: {r.url}")
        )
        self.page.on(
            "response", lambda r: self.problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None
        )

    def open(self, path: str) -> Page:
        """``path`` under the gallery (report/); a ``#<example_id>`` opens that row's view once its details
        file has loaded."""
        self.page.goto(f"{self.base}/report/{path}", wait_until="load")
        if "#" in path:
            # Only the fragment may have changed (no new document): the previous row's view is still up until
            # the page has read the new one's details, so wait for this id, not for any view.
            wanted = unquote(path.split("#", 1)[1])
            self.page.wait_for_function(
                """wanted => (document.querySelector('#detail h1')?.textContent === wanted)
                    || (document.querySelector('#missing')?.textContent.includes(wanted) ?? false)""",
                arg=wanted,
            )
        return self.page

    def broken_images(self) -> list[str]:
        """The shown images (not those of a hidden section or closed <details>) that failed to load."""
        shown = "Array.from(document.images).filter(image => image.getClientRects().length)"
        self.page.wait_for_function(f"{shown}.every(image => image.complete)")
        images = self.page.evaluate(f"{shown}.map(e => [e.getAttribute('src'), e.complete && e.naturalWidth > 0])")
        assert images, "the page shows no images"
        return [src for src, ok in images if not ok]

    def close(self) -> None:
        self.page.close()


@pytest.fixture
def visit(browser: Browser, site: str) -> Iterator[Visit]:
    current = Visit(browser, site)
    yield current
    current.close()


def anchor(example_id: str) -> str:
    return "#" + quote(example_id, safe="/")


def _shown(page: Page) -> int:
    count = page.locator("figure.row:visible").count()
    assert page.inner_text("#shown") == str(count)
    return count


def test_every_page_loads_cleanly_with_every_thumbnail_and_plot(visit: Visit, built: Path) -> None:
    visit.open("index.html")
    assert visit.broken_images() == []
    assert visit.page.locator("#configs a").count() == len(CONFIGS)
    no_image = {"handmade_gapartnet": 1}  # gapartnet/curated/45136 (no_render) has none: a grey placeholder
    for config in CONFIGS:
        page = visit.open(f"{config}/index.html")
        assert visit.broken_images() == []
        figures = page.locator("figure.row").count()
        assert page.locator("figure.row img").count() == figures - no_image.get(config, 0) > 0
        assert page.locator("figure.row .no-image").count() == no_image.get(config, 0)
        assert page.locator("figure.row svg").count() == figures  # every row's boxes drawn over it
        assert page.locator(".plots img").count() == 2
    assert visit.problems == []


def test_filters_reduce_the_visible_rows_to_the_right_count(visit: Visit, built: Path) -> None:
    bulk = list(iter_rows(built / "data/shards/bulk_umd"))
    page = visit.open("bulk_umd/index.html")
    assert _shown(page) == len(bulk)
    page.select_option("#filter-action", "grasp")
    assert _shown(page) == sum(r["target_action"] == "grasp" for r in bulk) > 0
    page.fill("#search", "knife")
    assert _shown(page) == sum(r["target_action"] == "grasp" and "knife" in r["example_id"] for r in bulk) > 0
    page.click("#reset")
    assert _shown(page) == len(bulk)

    handmade = gapartnet_rows()
    page = visit.open("handmade_gapartnet/index.html")
    page.select_option("#filter-tags", "box_projection_mismatch")
    assert _shown(page) == 1
    assert page.locator("figure.row:visible").get_attribute("data-id") == "gapartnet/bulk/45135/link_1"
    page.select_option("#filter-tags", "(none)")
    assert _shown(page) == sum(not r["exclusion_tags"] for r in handmade)
    page.select_option("#filter-tags", "")
    page.select_option("#filter-status", "excluded")
    page.select_option("#filter-stratum", "curated")
    assert _shown(page) == 1
    page.select_option("#filter-status", "")
    page.select_option("#filter-quality", "approximate")
    page.select_option("#filter-stratum", "")
    assert _shown(page) == 1
    page.select_option("#filter-quality", "")
    page.select_option("#filter-class", "slider_button")
    assert _shown(page) == 2

    page = visit.open("handmade_gui/index.html")
    page.select_option("#filter-stratum", "suite")
    assert _shown(page) == len(gui_rows())
    assert visit.problems == []


def test_pages_of_thumbnails_cover_every_selected_row_once_in_order(visit: Visit, built: Path) -> None:
    """`paged/`: 25 thumbnails a page. Turning the pages shows every row once, in the config's order; a filter
    starts again on its first page and counts every row it selects, not only the page's."""
    bulk = [r["example_id"] for r in iter_rows(built / "data/shards/bulk_umd")]
    page = visit.page
    page.goto(f"{visit.base}/paged/bulk_umd/index.html", wait_until="load")
    pages = -(-len(bulk) // PAGED.rows_per_page)
    assert page.inner_text("#pages") == str(pages) > "1" and page.is_disabled("#page-prev")
    seen = []
    for number in range(1, pages + 1):
        assert page.inner_text("#page") == str(number) and page.inner_text("#shown") == str(len(bulk))
        seen += [f.get_attribute("data-id") for f in page.locator("figure.row").all()]
        if number < pages:
            page.click("#page-next")
    assert seen == bulk and page.is_disabled("#page-next")
    page.fill("#search", "hammer")
    hammers = [i for i in bulk if "hammer" in i]
    assert page.inner_text("#page") == "1" and page.inner_text("#shown") == str(len(hammers))
    assert [f.get_attribute("data-id") for f in page.locator("figure.row").all()] == hammers[: PAGED.rows_per_page]
    assert visit.problems == []


def test_every_row_opens_by_its_id_from_any_details_file(visit: Visit, built: Path) -> None:
    """#<example_id> opens the row's view, whichever details file holds it (rows_per_file = 20); an unknown
    id says so; going back shows the gallery again."""
    bulk = list(iter_rows(built / "data/shards/bulk_umd"))
    for row in (bulk[0], bulk[PARAMS.rows_per_file], bulk[-1]):
        page = visit.open(f"bulk_umd/index.html{anchor(row['example_id'])}")
        assert page.inner_text("#detail h1") == row["example_id"]
        assert page.locator("#gallery").is_hidden() and visit.broken_images() == []
        box = "[" + ", ".join(f"{v:g}" for v in row["parts"][0]["bbox_xyxy"]) + "]"
        assert page.locator("#parts tr[data-part-id] td.bbox_xyxy").first.inner_text() == box
    page.click("#prev")  # from the last row into the file before
    page.wait_for_function(f"document.querySelector('#detail h1').textContent === {bulk[-2]['example_id']!r}")
    page.click("#back")
    page.wait_for_selector("#detail", state="hidden")
    assert page.locator("figure.row").first.is_visible()
    page = visit.open("bulk_umd/index.html#umd/bulk/no_such_row")
    assert "no row with id umd/bulk/no_such_row" in page.inner_text("#missing")
    assert visit.problems == []


def test_a_detail_view_shows_the_rows_boxes(visit: Visit) -> None:
    row = next(r for r in gapartnet_rows() if r["original_target_part_id"])
    page = visit.open("handmade_gapartnet/index.html")
    page.click(f'figure.row[data-id="{row["example_id"]}"] img')
    page.wait_for_selector("#detail h1")
    assert page.evaluate("decodeURIComponent(location.hash.slice(1))") == row["example_id"]
    assert visit.broken_images() == []
    shown = {
        tr.get_attribute("data-part-id"): (tr.get_attribute("data-role"), tr.locator("td.bbox_xyxy").inner_text())
        for tr in page.locator("#parts tr[data-part-id]").all()
    }
    expected_roles = {"link_2": "target", "link_0": "original", "link_1": "other"}
    for part in row["parts"]:
        box = "[" + ", ".join(f"{v:g}" for v in part["bbox_xyxy"]) + "]"
        assert shown[part["part_id"]] == (expected_roles[part["part_id"]], box)
    assert "link_0" in page.inner_text("#detail h1 + p")  # the re-ask names its original target
    # Drawn over the image: three boxes (outline and colour) and the object's, each part's chip with its id.
    overlay = page.locator("#overlay svg")
    assert overlay.locator("rect[stroke-width]").count() >= 2 * (len(row["parts"]) + 1)
    assert {t.text_content() for t in overlay.locator("text").all()} == {"1 link_0", "2 link_1", "3 link_2"}
    page.click("#next")
    page.wait_for_function(f"document.querySelector('#detail h1').textContent !== {row['example_id']!r}")
    assert page.locator("#parts").count() == 1
    assert visit.problems == []


def test_an_excluded_rows_page_says_why(visit: Visit) -> None:
    page = visit.open(f"handmade_gapartnet/index.html{anchor('gapartnet/curated/45136')}")
    assert "closed_pose_ambiguous, no_render" in page.inner_text("#excluded")
    assert page.inner_text("#overlay .no-image") == "no image in this row"
    assert visit.problems == []


def test_gapartnet_pages_filter_the_default_builds_rows(visit: Visit, built: Path) -> None:
    """The converter's own output: excluded box_projection_mismatch rows, highlighted bulk renders,
    fixed handles. Every expected count comes from the shards, not from the page."""
    bulk = list(iter_rows(built / "data/shards/bulk_gapartnet"))
    mismatch = [r for r in bulk if "box_projection_mismatch" in r["exclusion_tags"]]
    assert len(mismatch) == 4 and all("/900010/" in r["example_id"] for r in mismatch)  # the planted object
    page = visit.open("bulk_gapartnet/index.html")
    assert visit.broken_images() == []
    assert _shown(page) == len(bulk)
    page.select_option("#filter-tags", "box_projection_mismatch")
    assert _shown(page) == len(mismatch)
    visible = {f.get_attribute("data-id") for f in page.locator("figure.row:visible").all()}
    assert visible == {r["example_id"] for r in mismatch}
    page.select_option("#filter-tags", "(none)")
    assert _shown(page) == sum(not r["exclusion_tags"] for r in bulk) == len(bulk) - len(mismatch)
    page.click("#reset")

    def target_class(row: dict[str, Any]) -> str:
        return next(p["category"] for p in row["parts"] if p["part_id"] == row["target_part_id"])

    for handle in ("line_fixed_handle", "round_fixed_handle"):
        page.select_option("#filter-class", handle)
        assert _shown(page) == sum(target_class(r) == handle for r in bulk) > 0
    page.select_option("#filter-class", "")
    page.select_option("#filter-quality", "from-mask")
    page.select_option("#filter-status", "included")
    assert _shown(page) == sum(
        not r["excluded"]
        and next(p for p in r["parts"] if p["part_id"] == r["target_part_id"])["box_quality"] == "from-mask"
        for r in bulk
    )

    # A highlighted bulk row's view says which part the render highlights and shows its image.
    row = mismatch[0]
    assert row["render"]["kind"] == "highlighted"
    page = visit.open(f"bulk_gapartnet/index.html{anchor(row['example_id'])}")
    assert "box_projection_mismatch" in page.inner_text("#excluded")
    assert page.inner_text("#highlighted") == f"render highlights part {row['render']['highlighted_part_id']}"
    assert visit.broken_images() == []

    # Curated keeps every audited target: the planted wrong-frame object is flagged there, not excluded.
    curated = list(iter_rows(built / "data/shards/curated_gapartnet"))
    assert sum(r["excluded"] for r in curated) == 0
    page = visit.open("curated_gapartnet/index.html")
    page.select_option("#filter-status", "included")
    assert _shown(page) == len(curated)
    visible = {f.get_attribute("data-id") for f in page.locator("figure.row:visible").all()}
    flagged = {r["example_id"] for r in curated if "box_projection_mismatch" in (r["flags"] or [])}
    assert len(flagged) == 1 and flagged <= visible and all("900010" in e for e in flagged)
    assert visit.problems == []


def test_every_page_carries_the_synthetic_banner_and_row_pages_show_prompts(visit: Visit, built: Path) -> None:
    """A sample build says so on every page; a row's view shows what the model is asked under each valid
    condition (the row's prompts, from the same templates the requests use) and the target on its image."""
    pages = ["index.html"]
    for config in CONFIGS:
        pages.append(f"{config}/index.html")
        page = visit.open(f"{config}/index.html")
        first = page.locator("figure.row a").first.get_attribute("href")
        pages.append(f"{config}/index.html{first}")
    for path in pages:
        page = visit.open(path)
        banner = page.locator("#synthetic")
        assert banner.is_visible(), path
        assert banner.inner_text().startswith("SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK."), path
        assert page.locator("body > *").first.get_attribute("id") == "synthetic", path  # the first thing shown
    # Distribution plots are collapsed: the thumbnails come first.
    page = visit.open("bulk_umd/index.html")
    assert page.locator("details.plots").get_attribute("open") is None
    assert not page.locator("details.plots img").first.is_visible()
    assert page.locator("figure.row img").first.is_visible()

    row = next(r for r in iter_rows(built / "data/shards/curated_umd") if not r["excluded"])
    page = visit.open(f"curated_umd/index.html{anchor(row['example_id'])}")
    shown = {p.get_attribute("data-condition"): p.inner_text() for p in page.locator("pre.prompt").all()}
    expected = {c: build_prompt(row, c) for c in conditions_of(row)}
    assert len(expected) >= 6 and shown == expected
    assert page.locator("#overlay").is_visible() and visit.broken_images() == []
    excluded = visit.open(f"handmade_gapartnet/index.html{anchor('gapartnet/curated/45136')}")
    assert excluded.locator("pre.prompt").count() == 0
    assert "No valid condition" in excluded.inner_text("#prompts")
    assert visit.problems == []


def test_gui_captions_show_the_instruction_and_thumbnails_the_target_only(visit: Visit) -> None:
    page = visit.open("handmade_gui/index.html")
    captions = [f.inner_text() for f in page.locator("figure.row figcaption").all()]
    assert len(captions) == 2
    for caption, answer in zip(captions, ("point", "box"), strict=True):
        assert "Click the Share button in the top bar" in caption and f"{answer} answer" in caption
        assert "none ·" not in caption  # not the action every GUI target has
    thumbnail = page.locator("figure.row svg").first
    # the target alone: its box (outline and colour), its point with a cross-hair, no numbered chips
    assert thumbnail.locator("circle").count() == 1 and thumbnail.locator("text").count() == 0
    row_view = page.locator("figure.row a").first.get_attribute("href")
    page = visit.open(f"handmade_gui/index.html{row_view}")
    assert "Click the Share button in the top bar" in page.inner_text("pre.prompt[data-condition=gui]")
    assert page.locator("#overlay svg circle").count() == 3  # the row's view draws every candidate
    assert visit.problems == []


def test_the_gallery_works_from_disk(browser: Browser, built: Path) -> None:
    """Opened as files (file://): the thumbnails load from the store beside the gallery and a row's view
    loads its details file (a script, which a file:// page may load where it may not fetch)."""
    row = list(iter_rows(built / "data/shards/bulk_umd"))[-1]
    page = browser.new_page(viewport={"width": 1280, "height": 12000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(r.url))
    try:
        page.goto((built / "data/report/bulk_umd/index.html").as_uri(), wait_until="load")
        page.wait_for_function("Array.from(document.images).every(image => image.complete && image.naturalWidth)")
        assert page.locator("figure.row img").count() == len(list(iter_rows(built / "data/shards/bulk_umd")))
        page.goto((built / "data/report/bulk_umd/index.html").as_uri() + anchor(row["example_id"]))
        page.wait_for_selector("#detail h1")
        assert page.inner_text("#detail h1") == row["example_id"]
        assert page.locator("pre.prompt").count() == len(conditions_of(row)) > 0
        assert errors == []
    finally:
        page.close()
