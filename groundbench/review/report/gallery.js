// Filters of one config's gallery: every <select data-facet> keeps the rows whose facet matches;
// tags are a JSON list per row. Plain JS, no dependencies, works from file:// as well.
(function () {
  "use strict";
  var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-facet]"));
  var search = document.getElementById("search");
  var rows = Array.prototype.slice.call(document.querySelectorAll("figure.row"));
  var shown = document.getElementById("shown");

  function has(row, facet, value) {
    if (facet === "tags") {
      var tags = JSON.parse(row.getAttribute("data-tags"));
      return value === "(none)" ? tags.length === 0 : tags.indexOf(value) >= 0;
    }
    return row.getAttribute("data-" + facet) === value;
  }

  function apply() {
    var needle = search ? search.value.trim().toLowerCase() : "";
    var count = 0;
    rows.forEach(function (row) {
      var keep = selects.every(function (select) {
        return select.value === "" || has(row, select.getAttribute("data-facet"), select.value);
      });
      if (keep && needle) {
        keep = row.getAttribute("data-id").toLowerCase().indexOf(needle) >= 0;
      }
      row.classList.toggle("hidden", !keep);
      if (keep) { count += 1; }
    });
    shown.textContent = String(count);
  }

  selects.forEach(function (select) { select.addEventListener("change", apply); });
  if (search) { search.addEventListener("input", apply); }
  var reset = document.getElementById("reset");
  if (reset) {
    reset.addEventListener("click", function () {
      selects.forEach(function (select) { select.value = ""; });
      if (search) { search.value = ""; }
      apply();
    });
  }
  apply();
}());
