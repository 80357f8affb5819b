// A row drawn over its image as SVG, as groundbench/review/preview.py's overlay draws it on a preview:
// colour = role (target, a re-ask's original target, other candidates), line style = box quality, the point a
// disc (the target's larger, with a cross-hair), the object's box grey and dotted, each part's number (or
// number and id) on a chip placed where it covers no chip or emphasised box already placed. Sizes follow
// overlay's: the image scaled so its longest side is `side` (at most style.maxUpscale times), lines and
// chips sized from `side`. Plain JS, no dependencies.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var OTHER = 0, TARGET = 2; // role codes (rowdata.ROLES: other, original, target), also the drawing order
  var measure = null;

  function node(name, attributes, parent) {
    var element = document.createElementNS(SVG, name);
    Object.keys(attributes).forEach(function (key) { element.setAttribute(key, String(attributes[key])); });
    if (parent) { parent.appendChild(element); }
    return element;
  }

  function scaled(width, height, side, style) {
    var scale = Math.min(side / Math.max(width, height), style.maxUpscale);
    return { scale: scale, width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
  }

  function box(svg, values, scale, color, width, dash, style) {
    // Edges on the continuous pixel plane, drawn just inside x1 and y1; outlined for contrast.
    var x0 = values[0] * scale, y0 = values[1] * scale;
    var x1 = Math.max(x0, values[2] * scale - 1), y1 = Math.max(y0, values[3] * scale - 1);
    [[width + 2, style.outline], [width, color]].forEach(function (stroke) {
      var attributes = { x: x0, y: y0, width: x1 - x0, height: y1 - y0, fill: "none", stroke: stroke[1], "stroke-width": stroke[0] };
      if (dash) { attributes["stroke-dasharray"] = dash.join(" "); }
      node("rect", attributes, svg);
    });
  }

  function polygon(svg, vertices, scale, color, width, style) {
    // A GUI target annotated as a polygon (OSWorld-G), drawn as annotated; two vertices draw their segment.
    var points = [];
    for (var i = 0; i + 1 < vertices.length; i += 2) { points.push(vertices[i] * scale + "," + vertices[i + 1] * scale); }
    [[width + 2, style.outline], [width, color]].forEach(function (stroke) {
      node("polygon", { points: points.join(" "), fill: "none", stroke: stroke[1], "stroke-width": stroke[0], "stroke-linejoin": "round" }, svg);
    });
  }

  function noTargetBand(svg, size, tagSize, style) {
    // A refusal row: the element is not on the screen, so nothing is drawn but this band.
    node("rect", { x: 0, y: 0, width: size.width, height: tagSize + 8, fill: style.noTarget, stroke: style.outline }, svg);
    var label = node("text", { x: 4, y: tagSize + 3, fill: "#ffffff", "font-size": tagSize, "font-family": "sans-serif" }, svg);
    label.textContent = style.noTargetText;
  }

  function point(svg, values, scale, color, radius, cross, style) {
    var x = values[0] * scale, y = values[1] * scale;
    if (cross) {
      var arm = Math.round(radius * 2.5);
      [[4, style.outline], [2, color]].forEach(function (stroke) {
        var line = { stroke: stroke[1], "stroke-width": stroke[0] };
        node("line", Object.assign({ x1: x - arm, y1: y, x2: x + arm, y2: y }, line), svg);
        node("line", Object.assign({ x1: x, y1: y - arm, x2: x, y2: y + arm }, line), svg);
      });
    }
    node("circle", { cx: x, cy: y, r: radius, fill: color, stroke: style.outline, "stroke-width": 2 }, svg);
  }

  function anchor(part, scale) {
    var b = part[3], p = part[4];
    if (b) { return [b[0] * scale, b[1] * scale, b[2] * scale, b[3] * scale]; }
    if (p) { return [p[0] * scale - 6, p[1] * scale - 6, p[0] * scale + 6, p[1] * scale + 6]; }
    return null;
  }

  function overlaps(a, b) { return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]; }

  function textWidth(text, size) {
    measure = measure || document.createElement("canvas").getContext("2d");
    measure.font = size + "px sans-serif";
    return measure.measureText(text).width;
  }

  function place(around, text, size, bounds, taken) {
    // Above, below, then beside its box: the first spot inside the image that covers nothing placed.
    var w = Math.ceil(textWidth(text, size)) + 6, h = size + 4;
    var x0 = around[0], y0 = around[1], x1 = around[2], y1 = around[3];
    var spots = [[x0, y0 - h], [x0, y1], [x1 - w, y0 - h], [x1 - w, y1], [x1 + 1, y0], [x0 - w - 1, y0], [x0, y0]];
    var chips = spots.map(function (spot) {
      var x = Math.min(Math.max(0, spot[0]), bounds[0] - w), y = Math.min(Math.max(0, spot[1]), bounds[1] - h);
      return [x, y, x + w, y + h];
    });
    var free = chips.filter(function (chip) {
      return !taken.concat([around]).some(function (other) { return overlaps(chip, other); });
    });
    var chip = free.length ? free[0] : chips[0];
    taken.push(chip);
    return chip;
  }

  function tag(svg, chip, text, color, size, style) {
    node("rect", { x: chip[0], y: chip[1], width: chip[2] - chip[0], height: chip[3] - chip[1], fill: color, stroke: style.outline }, svg);
    var rgb = [1, 3, 5].map(function (i) { return parseInt(color.slice(i, i + 2), 16); });
    var ink = rgb[0] + rgb[1] + rgb[2] > 380 ? style.outline : "#ffffff";
    var label = node("text", { x: chip[0] + 3, y: chip[3] - 3, fill: ink, "font-size": size, "font-family": "sans-serif" }, svg);
    label.textContent = text;
  }

  // parts: [number, role, dash, box, point, id, polygon]; tags: "number", "id" (number and part id) or "none";
  // noTarget: a refusal row (no parts), marked with a band.
  function draw(width, height, side, objectBox, parts, tags, style, noTarget) {
    var size = scaled(width, height, side, style);
    var scale = size.scale;
    var svg = node("svg", { viewBox: "0 0 " + size.width + " " + size.height, "aria-hidden": "true" });
    var line = Math.max(1, Math.round(side / 400));
    var tagSize = Math.max(10, Math.round(side / 45));
    if (objectBox) { box(svg, objectBox, scale, style.objectBox, 1, [2, 3], style); }
    var ordered = parts.slice().sort(function (a, b) { return a[1] - b[1] || a[0] - b[0]; });
    ordered.forEach(function (part) {
      var color = style.colors[part[1]], emphasis = part[1] !== OTHER;
      if (part[6]) { polygon(svg, part[6], scale, color, line * 3, style); }
      else if (part[3]) { box(svg, part[3], scale, color, line * (emphasis ? 3 : 1), style.dashes[part[2]], style); }
      if (part[4]) { point(svg, part[4], scale, color, line * (emphasis ? 4 : 2) + 1, part[1] === TARGET, style); }
    });
    if (noTarget) { noTargetBand(svg, size, tagSize, style); }
    if (tags === "none") { return svg; }
    // Labels last, the target's placed first so no other label hides it, and drawn last, on top.
    var taken = ordered.filter(function (p) { return p[1] !== OTHER && anchor(p, scale); }).map(function (p) { return anchor(p, scale); });
    var chips = [];
    ordered.slice().reverse().forEach(function (part) {
      var around = anchor(part, scale);
      if (!around) { return; }
      var text = tags === "number" ? String(part[0]) : part[0] + " " + part[5];
      chips.push([place(around, text, tagSize, [size.width, size.height], taken), text, style.colors[part[1]]]);
    });
    chips.reverse().forEach(function (chip) { tag(svg, chip[0], chip[1], chip[2], tagSize, style); });
    return svg;
  }

  window.groundbenchOverlay = { draw: draw, scaled: scaled };
}());
