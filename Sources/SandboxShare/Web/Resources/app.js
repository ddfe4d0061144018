// The Documents page of `sandbox share`: browse, upload (picker and drag and drop, files and
// folders), download, rename, move, delete, new folder, live refresh. Plain ES2020, no framework,
// no build step. Every name is put in the page as text (textContent / Text nodes), never as HTML,
// and nothing is inline, so the page runs under the server's Content-Security-Policy.
"use strict";

(() => {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") ?? "";
  // The owner's browser (logged in with the pairing code) sees the devices section.
  const owner = document.querySelector('meta[name="owner"]')?.getAttribute("content") === "true";
  const byId = (id) => document.getElementById(id);
  const ui = {
    breadcrumbs: byId("breadcrumbs"),
    status: byId("status"),
    filter: byId("filter"),
    listing: byId("listing"),
    empty: byId("empty"),
    more: byId("more"),
    storage: byId("storage"),
    uploadsPanel: byId("uploads-panel"),
    uploads: byId("uploads"),
    overlay: byId("drop-overlay"),
    above: byId("above"),
    devicesPanel: byId("devices-panel"),
    devices: byId("devices"),
  };
  const state = {
    path: "/",
    items: [],
    shown: [],
    renderedPath: null,
    sortKey: "name",
    ascending: true,
    filter: "",
    serial: 0,
    loading: false, // pages of the folder still coming
  };

  // ---- Paths: Documents paths start with "/" ("/" is Documents itself). ----

  const join = (folder, relative) => (folder === "/" ? "/" + relative : folder + "/" + relative);
  const parentOf = (path) => {
    const slash = path.lastIndexOf("/");
    return slash <= 0 ? "/" : path.slice(0, slash);
  };
  const baseName = (path) => path.slice(path.lastIndexOf("/") + 1);
  const isInside = (path, folder) => path === folder || path.startsWith(folder === "/" ? "/" : folder + "/");
  const hashFor = (path) => "#" + path.split("/").map(encodeURIComponent).join("/");
  // What the filter compares: accents and case folded, so "res" finds "Résumé" (in either Unicode
  // form: macOS sends names decomposed) and "ALPHA" finds "alpha".
  const folded = (text) => text.normalize("NFKD").replace(/\p{M}/gu, "").toLocaleLowerCase();

  function pathFromHash() {
    const raw = location.hash.slice(1);
    if (!raw.startsWith("/")) return "/";
    try {
      const parts = raw.split("/").filter((part) => part !== "").map(decodeURIComponent);
      return "/" + parts.join("/");
    } catch {
      return "/"; // a malformed escape in a hand-typed address: start at Documents
    }
  }

  // The page's requests are relative: the page is at its session's own folder (/.sandbox/s/<scope>/),
  // the only place the browser sends the session cookie to.
  const route = (name, path, extra = {}) => {
    let address = name + "?path=" + encodeURIComponent(path);
    for (const [key, value] of Object.entries(extra)) {
      if (value !== null && value !== undefined) address += "&" + key + "=" + encodeURIComponent(value);
    }
    return address;
  };

  // ---- Building the DOM: text is always a Text node, never parsed as HTML. ----

  function el(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "data") Object.assign(node.dataset, value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    node.append(...children.filter((child) => child !== null && child !== undefined));
    return node;
  }

  const bytes = (count) => {
    if (count < 1000) return count + (count === 1 ? " byte" : " bytes");
    const units = ["KB", "MB", "GB", "TB", "PB"];
    let value = count / 1000;
    let unit = 0;
    while (value >= 1000 && unit < units.length - 1) {
      value /= 1000;
      unit += 1;
    }
    return (value < 10 ? value.toFixed(1) : Math.round(value).toString()) + " " + units[unit];
  };
  const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

  // ---- Status area (role="alert"). ----

  function showStatus(message, kind = "error") {
    ui.status.textContent = message;
    ui.status.className = "status " + kind;
    ui.status.dataset.kind = kind;
    ui.status.hidden = false;
  }
  function clearStatus() {
    ui.status.textContent = "";
    ui.status.hidden = true;
  }

  // ---- The JSON API. ----

  class ApiError extends Error {
    constructor(message, code, status) {
      super(message);
      this.code = code;
      this.status = status;
    }
  }

  function toLogin() {
    location.assign("/.sandbox/login");
  }

  // The server's `{"error": {"code", "message"}}`, or a sentence made from the status.
  function errorFrom(status, statusText, text) {
    try {
      const error = JSON.parse(text)?.error;
      if (error && typeof error.message === "string") return new ApiError(error.message, error.code, status);
    } catch {
      // not JSON (a proxy's page, say): fall through to the status line
    }
    const reasons = {
      413: "The file is larger than the server accepts (its upload limit).",
      507: "The device is full: there is no space left for this file.",
    };
    return new ApiError(reasons[status] ?? `The server answered ${status} ${statusText}.`, "http", status);
  }

  async function api(method, path, { query, extra, body } = {}) {
    const headers = {};
    if (method !== "GET") headers["X-CSRF-Token"] = csrf;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(query === undefined ? path : route(path, query, extra), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: "same-origin",
        cache: "no-store",
      });
    } catch {
      throw new ApiError("The server cannot be reached: is sandbox share still running?", "offline", 0);
    }
    if (response.status === 401) {
      toLogin();
      throw new ApiError("Your session has ended: log in again.", "unauthorized", 401);
    }
    if (!response.ok) throw errorFrom(response.status, response.statusText, await response.text());
    return response.status === 204 ? null : response.json();
  }

  // Runs a user action: clears the status, shows the server's message when it fails, reloads.
  async function act(action) {
    clearStatus();
    try {
      await action();
    } catch (error) {
      showStatus(error.message);
    }
    await refresh();
  }

  // ---- Listing: the server sends a folder a page at a time, in its order (folders first, then
  // names, digits by value: ListingOrder), each page after the cursor the last one ended with. ----

  const firstPageSize = 200; // the first screen, at once
  const laterPageSize = 5000; // the rest, in the background

  // Every page of `path`'s listing, in order: `onPage(items, more)` after each. Stops (returning
  // false) once `isCurrent()` says a newer load started.
  async function listPages(path, onPage, isCurrent = () => true) {
    let after = null;
    let limit = firstPageSize;
    for (;;) {
      const listing = await api("GET", "api/list", { query: path, extra: { limit, after } });
      if (!isCurrent()) return false;
      const more = typeof listing.next === "string";
      onPage(Array.isArray(listing.items) ? listing.items : [], more);
      if (!more) return true;
      after = listing.next;
      limit = laterPageSize;
    }
  }

  // Lists the folder again. A folder entered anew shows its first page at once and the rest as it
  // comes; a live refresh of the folder shown collects every page first, so that the rows in view
  // stay in place.
  async function refresh() {
    const serial = ++state.serial;
    const path = state.path;
    const progressive = state.renderedPath !== path;
    const items = [];
    try {
      await listPages(
        path,
        (page, more) => {
          for (const item of page) {
            item.rank = items.length;
            items.push(item);
          }
          if (!progressive) return;
          state.loading = more;
          if (items.length === page.length) {
            state.items = items;
            render();
          } else appendItems(page);
        },
        () => serial === state.serial,
      );
      if (serial !== state.serial) return; // a newer load has started
      if (!progressive) {
        state.items = items;
        state.loading = false;
        render(true);
      }
    } catch (error) {
      if (serial !== state.serial) return;
      state.loading = false;
      showMoreMarker();
      showStatus(error.message);
      if (error.status === 404 && path !== "/") location.hash = hashFor(parentOf(path));
    }
    loadStorage();
    loadDevices();
  }

  // A later page of the folder shown: in the server's order it goes after every row, so with the
  // name order and no filter it extends the list as it is; otherwise the list is sorted again.
  function appendItems(page) {
    if (state.sortKey === "name" && state.ascending && state.filter === "") {
      state.shown.push(...page);
      showMoreMarker();
      ui.empty.hidden = state.shown.length > 0;
    } else render(true);
  }

  // The server's order is the name order (ranks); size and date sort by themselves, ties by name.
  function compare(a, b) {
    if (a.folder !== b.folder) return a.folder ? -1 : 1;
    const byName = a.rank - b.rank;
    let order = byName;
    if (state.sortKey === "size") order = (a.folder ? 0 : a.size) - (b.folder ? 0 : b.size) || byName;
    if (state.sortKey === "modified") order = Date.parse(a.modified) - Date.parse(b.modified) || byName;
    return state.ascending ? order : -order;
  }

  // `keepPlace`: a live refresh or a later page of the folder shown keeps the rows in view;
  // a new folder, sort or filter starts at the top.
  function render(keepPlace = false) {
    renderBreadcrumbs();
    for (const header of document.querySelectorAll("th[data-sort]")) {
      const sorted = header.dataset.sort === state.sortKey;
      if (sorted) header.setAttribute("aria-sort", state.ascending ? "ascending" : "descending");
      else header.removeAttribute("aria-sort");
    }
    const focused = rememberFocus();
    const shown = state.items
      .filter((item) => state.filter === "" || folded(item.name).includes(state.filter))
      .sort(compare);
    const keep = keepPlace && state.renderedPath === state.path;
    state.shown = shown;
    state.renderedPath = state.path;
    if (!keep || state.start >= shown.length) {
      state.start = 0;
      state.above = [];
    }
    state.end = keep
      ? Math.min(shown.length, Math.max(state.start + pageSize, state.end))
      : Math.min(shown.length, pageSize);
    ui.listing.replaceChildren(...shown.slice(state.start, state.end).map(row));
    setAbove();
    showMoreMarker();
    ui.empty.hidden = shown.length > 0 || state.loading;
    ui.empty.textContent =
      state.items.length === 0 ? "This folder is empty." : `Nothing here matches “${ui.filter.value.trim()}”.`;
    restoreFocus(focused);
  }

  // ---- Rows a window at a time: a folder of 50,000 items shows its first screen at once; the
  // table holds at most `windowSize` rows (state.shown[start..<end]): a page is added when the
  // marker below comes near the viewport, the first page of the window then leaves for a spacer of
  // its height above the table's rows, and comes back when the spacer comes near the viewport. ----

  const pageSize = 200;
  const windowSize = 3 * pageSize;
  state.start = 0;
  state.end = 0;
  state.above = []; // the heights of the pages taken out above the window, in order
  const nearEnd = new IntersectionObserver(
    (entries) => {
      if (entries.some((entry) => entry.isIntersecting)) showMore();
    },
    { rootMargin: "0px 0px 1000px 0px" },
  );
  nearEnd.observe(ui.more);
  const nearStart = new IntersectionObserver(
    (entries) => {
      if (entries.some((entry) => entry.isIntersecting)) showEarlier();
    },
    { rootMargin: "1000px 0px 0px 0px" },
  );
  nearStart.observe(ui.above);

  function setAbove() {
    const height = state.above.reduce((sum, page) => sum + page, 0);
    ui.above.style.height = height + "px";
    if (state.start > 0) {
      nearStart.unobserve(ui.above);
      nearStart.observe(ui.above);
    }
  }

  function showMore() {
    if (state.end >= state.shown.length) return;
    const page = state.shown.slice(state.end, state.end + pageSize);
    ui.listing.append(...page.map(row));
    state.end += page.length;
    // The window's first page leaves, replaced by its height (measured once: one layout).
    while (ui.listing.rows.length > windowSize) {
      const rows = ui.listing.rows;
      const height = rows[pageSize].offsetTop - rows[0].offsetTop;
      for (let index = 0; index < pageSize; index += 1) rows[0].remove();
      state.above.push(height);
      state.start += pageSize;
    }
    setAbove();
    showMoreMarker();
  }

  function showEarlier() {
    if (state.start === 0) return;
    const from = state.start - pageSize;
    ui.listing.prepend(...state.shown.slice(from, state.start).map(row));
    state.start = from;
    state.above.pop();
    const rows = ui.listing.rows;
    while (rows.length > windowSize) {
      rows[rows.length - 1].remove();
      state.end -= 1;
    }
    setAbove();
    showMoreMarker();
  }

  function showMoreMarker() {
    const shown = state.end;
    ui.more.hidden = shown >= state.shown.length && !state.loading;
    ui.more.textContent = state.loading
      ? `Showing ${shown} of ${state.shown.length} so far, loading more…`
      : `Showing ${shown} of ${state.shown.length}…`;
    // Still in view after a page (a tall window): observe again so that it fires once more.
    if (!ui.more.hidden) {
      nearEnd.unobserve(ui.more);
      nearEnd.observe(ui.more);
    }
  }

  function renderBreadcrumbs() {
    const parts = state.path === "/" ? [] : state.path.slice(1).split("/");
    const crumbs = [{ name: "Documents", path: "/" }];
    parts.forEach((name, index) => crumbs.push({ name, path: "/" + parts.slice(0, index + 1).join("/") }));
    ui.breadcrumbs.replaceChildren(
      ...crumbs.map((crumb, index) => {
        const last = index === crumbs.length - 1;
        return el(
          "li",
          {},
          el("a", { href: hashFor(crumb.path), "aria-current": last ? "page" : null, data: { path: crumb.path } }, crumb.name),
        );
      }),
    );
    document.title = (crumbs[crumbs.length - 1].name || "Documents") + " · Sandbox";
  }

  function row(item) {
    const path = join(state.path, item.name);
    const name = item.folder
      ? el("a", { href: hashFor(path), class: "item folder" }, item.name)
      : el("a", { href: route("download", path), class: "item file", download: item.name }, item.name);
    const modified = new Date(item.modified);
    const when = Number.isNaN(modified.getTime())
      ? el("span", {}, "—")
      : el("time", { datetime: item.modified }, dateFormat.format(modified));
    const download = item.folder
      ? el("a", { href: route("zip", path), class: "button small", download: item.name + ".zip", data: { action: "zip" } }, "ZIP")
      : el("a", { href: route("download", path), class: "button small", download: item.name, data: { action: "download" } }, "Download");
    const button = (action, label) =>
      el("button", { type: "button", class: "small", data: { action }, "aria-label": `${label} ${item.name}` }, label);
    return el(
      "tr",
      { data: { name: item.name, path, folder: String(item.folder) } },
      el("td", { class: "name" }, name),
      el("td", { class: "num", data: { size: item.folder ? "" : String(item.size) } }, item.folder ? "—" : bytes(item.size)),
      el("td", { class: "modified" }, when),
      el("td", { class: "actions" }, download, button("rename", "Rename"), button("move", "Move"), button("delete", "Delete")),
    );
  }

  // Keeps keyboard focus on the same row's same control across a re-render (live refresh).
  function rememberFocus() {
    const active = document.activeElement;
    const tr = active?.closest?.("#listing tr");
    if (!tr) return null;
    return { path: tr.dataset.path, action: active.dataset.action ?? null };
  }
  function restoreFocus(focused) {
    if (!focused) return;
    const tr = [...ui.listing.rows].find((candidate) => candidate.dataset.path === focused.path);
    const target = tr && (focused.action ? tr.querySelector(`[data-action="${focused.action}"]`) : tr.querySelector("a.item"));
    target?.focus();
  }

  async function loadStorage() {
    try {
      const storage = await api("GET", "api/storage");
      ui.storage.textContent =
        `Documents use ${bytes(storage.documentsBytes)} · ${bytes(storage.freeBytes)} free on this device` +
        ` (of ${bytes(storage.totalBytes)})`;
    } catch (error) {
      ui.storage.textContent = "Storage: " + error.message;
    }
  }

  // ---- Devices (the owner's page only): the browsers logged in, each with a Revoke button. ----

  const when = (iso) => {
    const date = new Date(iso ?? "");
    return Number.isNaN(date.getTime()) ? el("span", {}, "—") : el("time", { datetime: iso }, dateFormat.format(date));
  };

  async function loadDevices() {
    if (!owner) return;
    try {
      const { devices } = await api("GET", "api/devices");
      ui.devices.replaceChildren(
        ...devices.map((device) =>
          el(
            "tr",
            { data: { device: device.id, current: String(device.current) } },
            el("td", {}, device.label, device.current ? el("span", { class: "note" }, " (this browser)") : null),
            el("td", {}, when(device.since)),
            el("td", {}, when(device.lastSeen)),
            el(
              "td",
              { class: "actions" },
              device.current
                ? null
                : el("button", { type: "button", class: "small danger", data: { revoke: device.id }, "aria-label": `Revoke ${device.label}` }, "Revoke"),
            ),
          ),
        ),
      );
      ui.devicesPanel.hidden = false;
    } catch (error) {
      if (error.status !== 401) showStatus("Devices: " + error.message);
    }
  }

  ui.devices.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-revoke]");
    if (!button) return;
    clearStatus();
    api("POST", "api/devices/revoke", { body: { id: button.dataset.revoke } })
      .catch((error) => showStatus(error.message))
      .then(loadDevices);
  });

  // ---- Dialogs (<dialog>, so keyboard and tests drive them like any control). ----

  function ask(dialog, focus) {
    return new Promise((resolve) => {
      dialog.returnValue = "";
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
      dialog.showModal();
      focus?.focus();
    });
  }

  async function askName(title, initial, okLabel) {
    byId("name-title").textContent = title;
    byId("name-ok").textContent = okLabel;
    const input = byId("name-input");
    input.value = initial;
    const confirmed = await ask(byId("name-dialog"), input);
    const name = input.value.trim();
    if (!confirmed || name === "") return null;
    if (name.includes("/")) throw new ApiError(`“${name}” cannot be a name: names cannot contain “/”.`, "invalid-name", 0);
    return name;
  }

  async function confirmDelete(item) {
    byId("confirm-title").textContent = item.folder ? "Delete folder" : "Delete file";
    byId("confirm-message").textContent = item.folder
      ? `Delete the folder “${item.name}” and everything in it? This cannot be undone.`
      : `Delete “${item.name}”? This cannot be undone.`;
    return ask(byId("confirm-dialog"), byId("confirm-cancel"));
  }

  // Every folder in Documents (breadth first, at most `limit`), for the move dialog.
  async function allFolders(limit = 2000) {
    const folders = ["/"];
    for (let index = 0; index < folders.length && folders.length < limit; index += 1) {
      const folder = folders[index];
      await listPages(folder, (page) => {
        for (const item of page) if (item.folder) folders.push(join(folder, item.name));
      });
    }
    return folders;
  }

  async function askDestination(item, from) {
    const folders = (await allFolders()).filter(
      (folder) => folder !== parentOf(from) && !(item.folder && isInside(folder, from)),
    );
    if (folders.length === 0) throw new ApiError(`There is no other folder to move “${item.name}” to: make one first.`, "no-folder", 0);
    const select = byId("move-select");
    select.replaceChildren(...folders.map((folder) => el("option", { value: folder }, folder === "/" ? "Documents" : "Documents" + folder)));
    byId("move-title").textContent = `Move “${item.name}”`;
    const confirmed = await ask(byId("move-dialog"), select);
    return confirmed ? select.value : null;
  }

  // ---- Row actions. ----

  ui.listing.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    const tr = button?.closest("tr");
    if (!tr) return;
    const item = state.items.find((candidate) => candidate.name === tr.dataset.name);
    if (!item) return;
    const path = tr.dataset.path;
    const action = button.dataset.action;
    if (action === "rename") {
      act(async () => {
        const name = await askName(`Rename “${item.name}”`, item.name, "Rename");
        if (name !== null && name !== item.name) await api("POST", "api/move", { body: { from: path, to: join(parentOf(path), name) } });
      });
    } else if (action === "move") {
      act(async () => {
        const folder = await askDestination(item, path);
        if (folder !== null) await api("POST", "api/move", { body: { from: path, to: join(folder, item.name) } });
      });
    } else if (action === "delete") {
      act(async () => {
        if (await confirmDelete(item)) await api("POST", "api/delete", { body: { path } });
      });
    }
  });

  byId("new-folder").addEventListener("click", () =>
    act(async () => {
      const name = await askName("New folder", "", "Create");
      if (name !== null) await api("POST", "api/mkdir", { body: { path: join(state.path, name) } });
    }),
  );

  for (const button of document.querySelectorAll("button[data-sort-key]")) {
    button.addEventListener("click", () => {
      const key = button.dataset.sortKey;
      state.ascending = key === state.sortKey ? !state.ascending : true;
      state.sortKey = key;
      render();
    });
  }

  ui.filter.addEventListener("input", () => {
    state.filter = folded(ui.filter.value.trim());
    render();
  });

  byId("logout").addEventListener("click", async () => {
    try {
      await api("POST", "logout");
    } catch {
      // already logged out, or the server is gone: the login page says which
    }
    toLogin();
  });

  // ---- Uploads: one XMLHttpRequest per file (upload.onprogress), the File itself as the body
  // (streamed by the browser, never read into memory here), at most three at a time. ----

  const uploads = { queue: [], active: 0, limit: 3 };

  function enqueue(file, folder, relative) {
    const target = join(folder, relative);
    const progress = el("progress", { max: String(Math.max(file.size, 1)), value: "0" });
    const note = el("span", { class: "upload-note" }, "Waiting");
    const cancel = el("button", { type: "button", class: "small quiet", "aria-label": `Cancel uploading ${relative}` }, "Cancel");
    const li = el("li", { data: { upload: target, state: "queued", percent: "0" } }, el("span", { class: "upload-name" }, relative), progress, note, cancel);
    const job = { file, target, li, progress, note, cancel, xhr: null };
    cancel.addEventListener("click", () => {
      if (job.xhr) job.xhr.abort();
      else {
        uploads.queue = uploads.queue.filter((queued) => queued !== job);
        finish(job, "cancelled", "Cancelled");
      }
    });
    ui.uploads.append(li);
    ui.uploadsPanel.hidden = false;
    uploads.queue.push(job);
    pump();
  }

  function pump() {
    while (uploads.active < uploads.limit && uploads.queue.length > 0) start(uploads.queue.shift());
  }

  function setProgress(job, loaded, total) {
    const percent = total > 0 ? Math.floor((loaded / total) * 100) : 100;
    job.progress.value = total > 0 ? Math.round((loaded / total) * Number(job.progress.max)) : Number(job.progress.max);
    job.li.dataset.percent = String(percent);
    job.note.textContent = percent + " %";
  }

  function finish(job, outcome, message) {
    job.li.dataset.state = outcome;
    job.note.textContent = message;
    job.cancel.remove();
  }

  function start(job) {
    uploads.active += 1;
    const xhr = new XMLHttpRequest();
    job.xhr = xhr;
    job.li.dataset.state = "uploading";
    job.note.textContent = "0 %";
    xhr.open("PUT", route("api/upload", job.target));
    xhr.setRequestHeader("X-CSRF-Token", csrf);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    // The file's own modification time (ownCloud's header, Unix seconds, to the millisecond), kept
    // by the server; a time it would refuse (before 1970, past year 9999) is not sent.
    const modified = job.file.lastModified;
    if (Number.isSafeInteger(modified) && modified >= 0 && modified < 253402300800000) {
      xhr.setRequestHeader("X-OC-Mtime", `${Math.floor(modified / 1000)}.${String(modified % 1000).padStart(3, "0")}`);
    }
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) setProgress(job, event.loaded, event.total);
    });
    xhr.addEventListener("load", () => {
      if (xhr.status === 401) toLogin();
      if (xhr.status >= 200 && xhr.status < 300) {
        setProgress(job, 1, 1);
        let saved = job.target;
        try {
          saved = JSON.parse(xhr.responseText).path ?? saved;
        } catch {
          // a 201 without a body: the file is where it was sent
        }
        job.li.dataset.saved = saved;
        finish(job, "done", saved === job.target ? "Done" : `Saved as “${baseName(saved)}”`);
      } else {
        const error = errorFrom(xhr.status, xhr.statusText, xhr.responseText);
        finish(job, "failed", error.message);
        showStatus(`${baseName(job.target)}: ${error.message}`);
      }
    });
    xhr.addEventListener("error", () => {
      finish(job, "failed", "The upload stopped: the connection to the server was lost.");
      showStatus(`${baseName(job.target)}: the upload stopped: the connection to the server was lost.`);
    });
    xhr.addEventListener("abort", () => finish(job, "cancelled", "Cancelled"));
    xhr.addEventListener("loadend", () => {
      uploads.active -= 1;
      pump();
      scheduleRefresh();
    });
    xhr.send(job.file);
  }

  // Removes the rows of finished uploads (done, cancelled, failed); the panel goes once it is empty.
  function clearFinishedUploads() {
    for (const li of [...ui.uploads.children]) if (["done", "cancelled", "failed"].includes(li.dataset.state)) li.remove();
    ui.uploadsPanel.hidden = ui.uploads.children.length === 0;
  }
  byId("clear-uploads").addEventListener("click", clearFinishedUploads);

  const hidden = (relative) => relative.split("/").some((part) => part.startsWith("."));

  for (const input of [byId("upload-files"), byId("upload-folder")]) {
    input.addEventListener("change", () => {
      clearStatus();
      const folder = state.path;
      for (const file of input.files) {
        const relative = file.webkitRelativePath || file.name;
        if (!(file.webkitRelativePath && hidden(relative))) enqueue(file, folder, relative);
      }
      input.value = ""; // the same file can be chosen again
    });
  }

  // ---- Drag and drop of files and folders (folders walked with webkitGetAsEntry). ----

  const carriesFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes("Files");
  let dragDepth = 0;
  document.addEventListener("dragenter", (event) => {
    if (!carriesFiles(event)) return;
    dragDepth += 1;
    ui.overlay.hidden = false;
  });
  document.addEventListener("dragleave", (event) => {
    if (!carriesFiles(event)) return;
    dragDepth = Math.max(0, dragDepth - 1);
    if (dragDepth === 0) ui.overlay.hidden = true;
  });
  document.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  });
  document.addEventListener("drop", (event) => {
    if (!event.dataTransfer) return;
    event.preventDefault();
    dragDepth = 0;
    ui.overlay.hidden = true;
    clearStatus();
    const folder = state.path;
    // Entries must be taken now: the DataTransfer is emptied once this handler returns.
    const entries = [];
    const loose = [];
    for (const item of event.dataTransfer.items) {
      if (item.kind !== "file") continue;
      const entry = typeof item.webkitGetAsEntry === "function" ? item.webkitGetAsEntry() : null;
      if (entry) entries.push(entry);
      else {
        const file = item.getAsFile();
        if (file) loose.push(file);
      }
    }
    if (entries.length === 0 && loose.length === 0) loose.push(...event.dataTransfer.files);
    for (const file of loose) enqueue(file, folder, file.name);
    (async () => {
      for (const entry of entries) await walk(entry, folder);
    })().catch((error) => showStatus(`The dropped folder could not be read: ${error.message}`));
  });

  async function walk(entry, folder) {
    const relative = entry.fullPath.replace(/^\/+/, "");
    if (entry.isFile) {
      if (hidden(relative) && relative.includes("/")) return;
      const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
      enqueue(file, folder, relative);
      return;
    }
    if (!entry.isDirectory || hidden(relative)) return;
    const reader = entry.createReader();
    const children = [];
    for (;;) {
      const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      children.push(...batch);
    }
    if (children.length === 0) {
      // An empty folder is part of the structure too.
      try {
        await api("POST", "api/mkdir", { body: { path: join(folder, relative) } });
      } catch (error) {
        if (error.code !== "name-taken") showStatus(error.message);
      }
      scheduleRefresh();
    }
    for (const child of children) await walk(child, folder);
  }

  // ---- Live refresh: Server-Sent Events from the folder monitor, coalesced. ----

  let refreshTimer = null;
  function scheduleRefresh() {
    if (refreshTimer !== null) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      refresh();
    }, 100);
  }

  function listen() {
    const source = new EventSource("events");
    source.addEventListener("change", (event) => {
      let changed = null;
      try {
        changed = JSON.parse(event.data).path ?? null;
      } catch {
        // no path: treat it as a change anywhere
      }
      if (changed === null || isInside(changed, state.path) || isInside(state.path, changed)) scheduleRefresh();
      else loadStorage();
    });
    source.addEventListener("open", () => document.body.classList.remove("offline"));
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) return; // the browser reconnects by itself
      document.body.classList.add("offline");
      // Closed for good (a 401 after the session ended, or the server stopped): find out which.
      api("GET", "api/storage")
        .then(() => setTimeout(listen, 2000))
        .catch((error) => {
          showStatus(error.message);
          if (error.status !== 401) setTimeout(listen, 5000);
        });
    });
  }

  window.addEventListener("hashchange", () => {
    state.path = pathFromHash();
    state.items = [];
    state.loading = false;
    clearFinishedUploads(); // uploads still running stay in view, wherever they go
    refresh();
  });

  state.path = pathFromHash();
  refresh();
  listen();
})();
