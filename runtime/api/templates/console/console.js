// uac console: sortable tables (click or Enter/Space on a column header). No other script.
"use strict";
document.querySelectorAll("table.sortable").forEach((table) => {
  const heads = Array.from(table.querySelectorAll("thead th"));
  heads.forEach((th, col) => {
    const button = th.querySelector("button");
    if (!button) return;
    button.addEventListener("click", () => {
      const down = th.getAttribute("aria-sort") === "ascending";
      heads.forEach((h) => h.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", down ? "descending" : "ascending");
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      const key = (row) => {
        const cell = row.cells[col];
        return cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim().toLowerCase();
      };
      rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (down ? -1 : 1));
      rows.forEach((row) => body.appendChild(row));
    });
  });
});
