// One config's gallery: the index (rows.js) calls groundbenchGallery.index(payload) once this has loaded.
// Filters and the id search select rows; a page of their thumbnails is drawn over the image store's files
// (overlay.js). #<example_id> opens that row's view from its details file (details/<k>.js, loaded on demand
// as a script, so the page works from file:// as well as over http). Plain JS, no dependencies.
(function () {
  "use strict";
  var ROLE_NAMES = ["candidate", "original target", "target"];
  var ROLE_CLASSES = ["other", "original", "target"];
  var PART_COLUMNS = ["part_id", "category", "action", "box_quality", "bbox_xyxy", "point_xy", "joint_type",
    "mask_area", "motion_axis_2d", "motion_axis_3d", "secondary_actions"];
  var NO_TAG = "(none)";
  var data = null, column = {}, positions = Object.create(null), lowered = null;
  var selected = [], page = 0, gridScroll = 0;
  var files = {}, requested = {}, waiting = null;

  function element(name, attributes, text) {
    var made = document.createElement(name);
    Object.keys(attributes || {}).forEach(function (key) { made.setAttribute(key, String(attributes[key])); });
    if (text !== undefined) { made.textContent = text; }
    return made;
  }

  function append(parent) {
    Array.prototype.slice.call(arguments, 1).forEach(function (child) {
      parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return parent;
  }

  function value(row, name) { return row[column[name]]; }
  function facet(row, name) { return data.values[name][value(row, name)]; }
  function anchorOf(id) { return "#" + encodeURI(id).replace(/#/g, "%23"); }

  function idOfHash() {
    var raw = window.location.hash.slice(1);
    try { return decodeURIComponent(raw); } catch (error) { return raw; }
  }

  // ---- filters and pages ------------------------------------------------------------------------------

  function matcher(select) {
    var name = select.getAttribute("data-facet"), wanted = select.value;
    if (wanted === "") { return null; }
    if (name === "status") {
      var excluded = wanted === "excluded" ? 1 : 0;
      return function (row) { return value(row, "excluded") === excluded; };
    }
    if (name === "tags") {
      var has = data.values.tags.map(function (tags) {
        return wanted === NO_TAG ? tags.length === 0 : tags.indexOf(wanted) >= 0;
      });
      return function (row) { return has[value(row, "tags")]; };
    }
    var code = data.values[name].indexOf(wanted);
    return function (row) { return value(row, name) === code; };
  }

  function apply() {
    var tests = Array.prototype.map.call(document.querySelectorAll("select[data-facet]"), matcher)
      .filter(function (test) { return test; });
    var needle = document.getElementById("search").value.trim().toLowerCase();
    if (needle && !lowered) { lowered = data.rows.map(function (row) { return value(row, "id").toLowerCase(); }); }
    selected = [];
    data.rows.forEach(function (row, position) {
      if (tests.every(function (test) { return test(row); }) && (!needle || lowered[position].indexOf(needle) >= 0)) {
        selected.push(position);
      }
    });
    document.getElementById("shown").textContent = String(selected.length);
    page = 0;
    drawPage();
  }

  function pages() { return Math.max(1, Math.ceil(selected.length / data.rowsPerPage)); }

  function drawPage() {
    var grid = document.getElementById("grid");
    var fragment = document.createDocumentFragment();
    selected.slice(page * data.rowsPerPage, (page + 1) * data.rowsPerPage).forEach(function (position) {
      fragment.appendChild(figure(data.rows[position]));
    });
    grid.textContent = "";
    grid.appendChild(fragment);
    document.getElementById("page").textContent = String(page + 1);
    document.getElementById("pages").textContent = String(pages());
    document.getElementById("page-prev").disabled = page === 0;
    document.getElementById("page-next").disabled = page + 1 >= pages();
  }

  function turn(step) {
    page = Math.min(Math.max(0, page + step), pages() - 1);
    drawPage();
    document.querySelector(".filters").scrollIntoView();
  }

  // ---- pictures ----------------------------------------------------------------------------------------

  function picture(row, side, parts, tags, lazy) {
    var width = value(row, "width") || 640, height = value(row, "height") || 480;
    var size = window.groundbenchOverlay.scaled(width, height, side, data.style);
    var holder = element("div", { "class": "picture", style: "width:" + size.width + "px" });
    var image = value(row, "image");
    if (image) {
      // Thumbnails load as they scroll into view: a page of large screenshots would otherwise load at once.
      append(holder, element("img", {
        src: data.images + image, width: size.width, height: size.height, loading: lazy ? "lazy" : "eager", alt: value(row, "id")
      }));
    } else {
      // The row carries no image (e.g. no_render): a grey canvas of its size, as a preview draws it.
      append(holder, element("div", { "class": "no-image", style: "aspect-ratio:" + width + "/" + height }, "no image in this row"));
    }
    // A GUI row (it has an instruction) with no part to draw is a refusal row: no target on the screen.
    var noTarget = !!value(row, "instruction") && parts.length === 0;
    holder.appendChild(window.groundbenchOverlay.draw(width, height, side, value(row, "object_box"), parts, tags, data.style, noTarget));
    return holder;
  }

  function caption(row) {
    var instruction = value(row, "instruction");
    var what = [];
    if (instruction) {
      what.push(element("span", { "class": "instruction" }, instruction), " · " + facet(row, "answer") + " answer");
    } else {
      what.push([facet(row, "action"), facet(row, "class"), facet(row, "quality")].join(" · "));
    }
    if (value(row, "reask")) { what.push(" · re-ask"); }
    var tags = facet(row, "tags");
    var text = append(element("figcaption"), element("a", { href: anchorOf(value(row, "id")) }, value(row, "id")), element("br"));
    what.forEach(function (part) { append(text, part); });
    if (tags.length) { append(text, element("br"), element("span", { "class": "tags" }, tags.join(", "))); }
    return text;
  }

  function figure(row) {
    var parts = value(row, "parts");
    var tags = value(row, "numbered") ? "number" : "none"; // as a contact sheet's thumbnail (sheet.thumbnail_view)
    var made = element("figure", {
      "class": value(row, "excluded") ? "row excluded" : "row", "data-id": value(row, "id"), style: "width:" + data.thumbSide + "px"
    });
    var link = element("a", { href: anchorOf(value(row, "id")) });
    append(made, append(link, picture(row, data.thumbSide, parts, tags, true)), caption(row));
    return made;
  }

  // ---- a row's view ------------------------------------------------------------------------------------

  function number(v) {
    // Python's "{:g}": six significant digits, exponent below 1e-4 and from 1e6.
    if (v === 0 || !isFinite(v)) { return String(v); }
    var exponent = Math.floor(Math.log10(Math.abs(Number(v.toPrecision(6)))));
    if (exponent < -4 || exponent >= 6) {
      var parts = v.toExponential(5).split("e");
      var mantissa = parts[0].indexOf(".") >= 0 ? parts[0].replace(/0+$/, "").replace(/\.$/, "") : parts[0];
      var power = Number(parts[1]);
      return mantissa + "e" + (power < 0 ? "-" : "+") + (Math.abs(power) < 10 ? "0" : "") + Math.abs(power);
    }
    return String(Number(v.toPrecision(6)));
  }

  function cell(v) {
    if (v === null || v === undefined) { return "null"; }
    if (Array.isArray(v)) { return "[" + v.map(function (x) { return typeof x === "number" ? number(x) : String(x); }).join(", ") + "]"; }
    return String(v);
  }

  function json(v) {
    // As Python's json.dumps(sort_keys=True) writes a field's value.
    if (v === null || v === undefined) { return "null"; }
    if (Array.isArray(v)) { return "[" + v.map(json).join(", ") + "]"; }
    if (typeof v === "object") {
      return "{" + Object.keys(v).sort().map(function (key) { return JSON.stringify(key) + ": " + json(v[key]); }).join(", ") + "}";
    }
    return typeof v === "number" ? String(v) : JSON.stringify(v);
  }

  function fields(record, prefix, out) {
    // Every field in schema order, nested ones by dotted name; the image as its path and size.
    Object.keys(record).forEach(function (key) {
      var v = record[key], name = prefix + key;
      if (key === "image" && !prefix) {
        var image = v || {};
        out.push(["image.path", image.path === null || image.path === undefined ? "null" : String(image.path)]);
        out.push(["image.bytes", image.bytes === null || image.bytes === undefined ? "null" : image.bytes + " bytes (embedded)"]);
      } else if (v !== null && typeof v === "object" && !Array.isArray(v)) {
        fields(v, name + ".", out);
      } else if (name !== "parts") {
        out.push([name, v === null ? "null" : typeof v === "string" ? v : json(v)]);
      }
    });
    return out;
  }

  function roleOf(record, id) {
    if (id !== null && id === record.target_part_id) { return 2; }
    if (id !== null && id === record.original_target_part_id) { return 1; }
    return 0;
  }

  function text(v) { return v === null || v === undefined ? "None" : String(v); }

  function view(position, file) {
    var row = data.rows[position], at = position - file.number * data.rowsPerFile;
    var record = file.rows[at], prompts = file.prompts[at], id = value(row, "id");
    var detail = document.getElementById("detail");
    detail.textContent = "";
    var nav = append(element("p"), element("a", { id: "back", href: "#" }, data.config + " gallery"));
    if (position > 0) { append(nav, " · ", element("a", { id: "prev", href: anchorOf(value(data.rows[position - 1], "id")) }, "previous row")); }
    if (position + 1 < data.rows.length) { append(nav, " · ", element("a", { id: "next", href: anchorOf(value(data.rows[position + 1], "id")) }, "next row")); }
    append(detail, nav);
    var tags = (record.exclusion_tags || []).slice().sort();
    if (record.excluded || tags.length) { append(detail, element("p", { "class": "banner", id: "excluded" }, "excluded: " + (tags.join(", ") || "(no tag)"))); }
    var region = ((record.extras || {}).gui || {}).region_kind;
    var target = region === "none" ? "NO TARGET: refusal row (the element is not on the screen)"
      : "target " + text(record.target_part_id) + " (" + text(record.target_action) + ")";
    if (record.original_target_part_id !== null && record.original_target_part_id !== undefined) {
      target += " · re-ask of original target " + text(record.original_target_part_id) + " (" + text(record.original_action) + ")";
    }
    append(detail, element("h1", {}, id), element("p", {}, target));
    var highlighted = (record.render || {}).highlighted_part_id;
    if (highlighted) { append(detail, element("p", { id: "highlighted" }, "render highlights part " + highlighted)); }
    if (record.instruction) { append(detail, element("p", { id: "instruction" }, "instruction: " + record.instruction)); }
    var parts = (record.parts || []).map(function (part, index) {
      var quality = data.style.dashOf[String(part.box_quality)];
      var role = roleOf(record, part.part_id), gui = (record.extras || {}).gui || {};
      var polygon = role === 2 && gui.region_kind === "polygon" && (gui.eval_polygon || []).length >= 4 ? gui.eval_polygon : null;
      return [index + 1, role, quality === undefined ? 0 : quality, part.bbox_xyxy, part.point_xy, part.part_id, polygon];
    });
    var shown = picture(row, data.detailSide, parts, parts.length <= data.style.maxIdTags ? "id" : "number", false);
    shown.id = "overlay";
    append(detail, append(element("div", { "class": "detail" }), shown), document.querySelector(".key").cloneNode(true));
    var section = element("section", { id: "prompts" });
    if (!prompts.length) { append(section, element("p", {}, "No valid condition: the row is never requested or scored.")); }
    prompts.forEach(function (prompt) {
      var words = prompt[1].map(function (index) { return file.paragraphs[index]; }).join("\n\n");
      append(section, element("h3", {}, prompt[0]), element("pre", { "class": "prompt", "data-condition": prompt[0] }, words));
    });
    append(detail, element("h2", {}, "Prompts"), section);
    var table = element("table", { id: "parts" });
    append(table, append.apply(null, [element("tr")].concat(["n", "role"].concat(PART_COLUMNS).map(function (name) { return element("th", {}, name); }))));
    (record.parts || []).forEach(function (part, index) {
      var role = roleOf(record, part.part_id);
      var tr = element("tr", { "class": "part-" + ROLE_CLASSES[role], "data-role": ROLE_CLASSES[role], "data-part-id": text(part.part_id) });
      append(tr, element("td", {}, String(index + 1)), element("td", {}, ROLE_NAMES[role]));
      PART_COLUMNS.forEach(function (name) { append(tr, element("td", { "class": name }, cell(part[name]))); });
      append(table, tr);
    });
    append(detail, element("h2", {}, "Candidate parts"), table);
    var every = append(element("table", { id: "fields" }), append(element("tr"), element("th", {}, "field"), element("th", {}, "value")));
    fields(record, "", []).forEach(function (pair) {
      append(every, append(element("tr"), element("td", {}, pair[0]), append(element("td"), element("code", {}, pair[1]))));
    });
    append(detail, element("h2", {}, "Every field"), every);
    document.title = id + ": GroundBench";
  }

  function load(number) {
    if (requested[number]) { return; }
    requested[number] = true;
    var tag = element("script", { src: "details/" + number + ".js" });
    tag.onerror = function () { message("could not load details/" + number + ".js"); };
    document.body.appendChild(tag);
  }

  function message(words) {
    var detail = document.getElementById("detail");
    detail.textContent = "";
    append(detail, append(element("p"), element("a", { id: "back", href: "#" }, data.config + " gallery")), element("p", { "class": "banner", id: "missing" }, words));
  }

  function show() {
    var id = idOfHash();
    var gallery = document.getElementById("gallery"), detail = document.getElementById("detail");
    if (!id) {
      waiting = null;
      detail.hidden = true;
      gallery.hidden = false;
      document.title = data.config + ": GroundBench audit gallery";
      window.scrollTo(0, gridScroll);
      return;
    }
    if (!gallery.hidden) { gridScroll = window.scrollY; }
    gallery.hidden = true;
    detail.hidden = false;
    var position = positions[id];
    if (position === undefined) {
      message("no row with id " + id + " in " + data.config);
      return;
    }
    var number = Math.floor(position / data.rowsPerFile);
    if (files[number]) {
      view(position, files[number]);
      window.scrollTo(0, 0);
    } else {
      waiting = position;
      load(number);
    }
  }

  function details(number, payload) {
    payload.number = number;
    files[number] = payload;
    if (waiting !== null && Math.floor(waiting / data.rowsPerFile) === number) {
      var position = waiting;
      waiting = null;
      view(position, payload);
      window.scrollTo(0, 0);
    }
  }

  function index(payload) {
    data = payload;
    data.columns.forEach(function (name, at) { column[name] = at; });
    data.rows.forEach(function (row, position) { positions[value(row, "id")] = position; });
    document.getElementById("total").textContent = String(data.rows.length);
    var selects = document.querySelectorAll("select[data-facet]");
    Array.prototype.forEach.call(selects, function (select) { select.addEventListener("change", apply); });
    document.getElementById("search").addEventListener("input", apply);
    document.getElementById("reset").addEventListener("click", function () {
      Array.prototype.forEach.call(selects, function (select) { select.value = ""; });
      document.getElementById("search").value = "";
      apply();
    });
    document.getElementById("page-prev").addEventListener("click", function () { turn(-1); });
    document.getElementById("page-next").addEventListener("click", function () { turn(1); });
    window.addEventListener("hashchange", show);
    apply();
    show();
  }

  window.groundbenchGallery = { index: index, details: details };
}());
