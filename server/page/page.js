// The participant page of a SkewBench study server: joins, asks and
// answers through the server's protocol (skewgp serve --help), in any
// browser, with the keyboard or by touch. Nothing here comes from
// anywhere but this server.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const store = window.localStorage;
  const KEY = "skewbench:" + location.host;
  const params = new URLSearchParams(location.search);
  const externalId = params.get("PROLIFIC_PID") || params.get("external_id") || null;

  let info = null;
  let token = null;
  let question = null;      // the open question's document
  let shownAt = 0;          // performance.now() when its stimuli were on screen
  let ranking = [];         // option indices, best first
  let confidence = null;    // the confidence chosen: a word or a rating, or null (none)
  let scale = null;         // the question's confidence_scale
  let soundsLeft = 0;       // sounds not yet heard to the end
  let sending = false;
  let answersSinceBreak = 0;
  let blobUrls = [];

  // ---- Storage: the token, and an answer not yet acknowledged -----------------

  function saved() {
    try { return JSON.parse(store.getItem(KEY) || "{}"); } catch (e) { return {}; }
  }
  function save(state) {
    try { store.setItem(KEY, JSON.stringify(state)); } catch (e) { /* private mode: memory only */ }
  }
  function setPending(answer) {
    const s = saved(); s.pending = answer; save(s);
  }

  // ---- HTTP ---------------------------------------------------------------------

  class HttpError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  async function api(method, path, body) {
    const headers = {};
    if (token) headers["Authorization"] = "Bearer " + token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(path, { method, headers, cache: "no-store",
                                    body: body === undefined ? undefined : JSON.stringify(body) });
    let doc = null;
    try { doc = await res.json(); } catch (e) { doc = null; }
    if (!res.ok) throw new HttpError(res.status, (doc && doc.error) || ("HTTP " + res.status));
    return doc;
  }

  function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

  // Repeats CALL while the server cannot be reached (or is busy), showing
  // the banner; other errors are thrown.
  async function persist(call) {
    let wait = 1000;
    for (;;) {
      try {
        const result = await call();
        $("offline").hidden = true;
        return result;
      } catch (e) {
        const busy = e instanceof HttpError && (e.status === 429 || e.status === 503 || e.status >= 502);
        if (e instanceof HttpError && !busy) { $("offline").hidden = true; throw e; }
        if (!busy) {
          $("offline").hidden = false;
          $("offline-retry").textContent = "next try in " + Math.round(wait / 1000) + " s";
        }
        await sleep(wait);
        wait = Math.min(wait * 2, 10000);
      }
    }
  }

  // ---- Screens ------------------------------------------------------------------------

  function show(id) {
    for (const s of ["welcome", "question", "break", "done"]) $(s).hidden = s !== id;
  }
  function message(text) {
    $("message").textContent = text || "";
    $("message").hidden = !text;
  }
  function progress(answers, budget) {
    if (!budget) return;
    $("progress").hidden = false;
    $("progress-bar").style.width = Math.round(160 * Math.min(answers, budget) / budget) + "px";
    $("progress-text").textContent = answers + " of " + budget;
  }

  // ---- Joining ----------------------------------------------------------------------

  async function join() {
    const body = {};
    if (externalId) body.external_id = externalId;
    if (info.consent) body.consent = true;
    const doc = await persist(() => api("POST", "/api/join", body));
    token = doc.token;
    save({ token, participant: doc.participant, external_id: externalId, pending: null });
  }

  function welcome() {
    show("welcome");
    const needConsent = !!info.consent;
    $("consent-box").hidden = !needConsent;
    $("consent-text").textContent = info.consent || "";
    $("start").disabled = needConsent && !$("consent-check").checked;
    $("consent-check").onchange = () => { $("start").disabled = !$("consent-check").checked; };
    $("start").onclick = async () => {
      $("start").disabled = true;
      try {
        await join();
        await next();
      } catch (e) {
        message(e.message);
        $("start").disabled = false;
      }
    };
    $("start").focus();
  }

  // ---- Questions ------------------------------------------------------------------------

  function clearBlobs() {
    for (const u of blobUrls) URL.revokeObjectURL(u);
    blobUrls = [];
  }

  async function fetchBlob(url) {
    const res = await persist(async () => {
      const r = await fetch(url, { headers: { Authorization: "Bearer " + token } });
      if (!r.ok) throw new HttpError(r.status, "the stimulus cannot be loaded (" + r.status + ")");
      return r;
    });
    const u = URL.createObjectURL(await res.blob());
    blobUrls.push(u);
    return u;
  }

  // The element showing option I's stimulus; resolves when it is on screen.
  async function stimulusElement(stim) {
    const box = document.createElement("div");
    if (stim.kind === "colour") {
      const sw = document.createElement("div");
      sw.className = "swatch";
      sw.style.backgroundColor = stim.rgb;
      box.appendChild(sw);
    } else if (stim.kind === "image") {
      const img = document.createElement("img");
      img.className = "stimulus-img";
      img.alt = "";
      img.src = await fetchBlob(stim.url);
      try { await img.decode(); } catch (e) { /* shown as broken */ }
      box.appendChild(img);
    } else if (stim.kind === "sound") {
      const audio = document.createElement("audio");
      audio.controls = true;
      audio.preload = "auto";
      audio.src = await fetchBlob(stim.url);
      audio.addEventListener("click", (ev) => ev.stopPropagation());
      let heard = false;
      soundsLeft++;
      audio.addEventListener("ended", () => {
        if (!heard) { heard = true; soundsLeft--; updateEnabled(); }
      });
      box.appendChild(audio);
    } else {
      const t = document.createElement("div");
      t.className = "stimulus-text";
      t.textContent = stim.text || "";
      box.appendChild(t);
    }
    if (stim.caption) {
      const c = document.createElement("div");
      c.className = "caption";
      c.textContent = stim.caption;
      box.appendChild(c);
    }
    return box;
  }

  function labelFor(place, n, kind) {
    if (kind === "duel") return place === 0 ? "Left" : "Right";
    return "Option " + (place + 1);
  }
  function keyFor(place, kind) {
    if (kind === "duel") return place === 0 ? "←" : "→";
    return String(place + 1);
  }

  function updateEnabled() {
    const locked = sending || soundsLeft > 0;
    for (const el of document.querySelectorAll(".option")) el.setAttribute("aria-disabled", locked ? "true" : "false");
    $("tie").disabled = locked;
    $("value-send").disabled = locked;
    $("value-failed").disabled = locked;
    $("rank-confirm").disabled = locked || !question || ranking.length !== question.options.length;
    $("rank-undo").disabled = locked || ranking.length === 0;
    $("hint").textContent = soundsLeft > 0 ? "Listen to every sound to the end before answering."
                                           : hintText();
  }

  function hintText() {
    if (!question) return "";
    switch (question.kind) {
      case "duel": return "Keys: ← or A for left, → or B for right" + (info.ties ? ", T for about the same" : "") + ".";
      case "choice": return "Keys: 1 to " + question.options.length + " pick an option.";
      case "ranking": return "Keys: press the numbers from best to worst, Backspace undoes, Enter confirms.";
      default: return "";
    }
  }

  async function render(q) {
    question = q;
    ranking = [];
    confidence = null;
    soundsLeft = 0;
    clearBlobs();
    const n = q.options.length;
    const box = $("options");
    box.textContent = "";
    box.style.setProperty("--n", q.kind === "value" ? 1 : n);
    box.className = "options" + (n === 4 ? " grid2" : n > 2 ? " many" : "");
    // the experiment's own question text, else the wording for its kind
    $("prompt").textContent = q.kind === "value" ? info.value_prompt
                              : info.question_text && q.question_text ? q.question_text : info.prompt;
    const elements = await Promise.all(q.shown_order.map((i) => stimulusElement(q.stimuli[i])));
    q.shown_order.forEach((optionIndex, place) => {
      const card = document.createElement(q.kind === "value" ? "div" : "button");
      card.className = "option";
      card.dataset.option = optionIndex;
      if (q.kind !== "value") {
        card.type = "button";
        const label = document.createElement("div");
        label.className = "label";
        label.textContent = labelFor(place, n, q.kind);
        const k = document.createElement("kbd");
        k.textContent = keyFor(place, q.kind);
        label.appendChild(k);
        card.appendChild(label);
        card.addEventListener("click", (ev) => pick(optionIndex, ev.shiftKey));
      }
      card.appendChild(elements[place]);
      box.appendChild(card);
    });
    $("tie").hidden = !(q.kind === "duel" && info.ties);
    $("rank-undo").hidden = $("rank-confirm").hidden = q.kind !== "ranking";
    $("value-box").hidden = q.kind !== "value";
    $("confidence").hidden = !(q.kind === "duel" || q.kind === "choice");
    renderConfidence(q.confidence_scale || { kind: "words" });
    if (q.progress) progress(q.progress.answers, q.progress.budget);
    show("question");
    // response time counts from the first frame that shows the stimuli
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    shownAt = performance.now();
    sending = false;
    updateEnabled();
    // what is on screen, for people who test the page
    $("question").dataset.question = String(q.question);
    if (q.kind === "value") $("value-input").focus();
  }

  // ---- Confidence: the experiment's scale ------------------------------------------------

  // The levels of SCALE as [value sent, button text]: the words weak,
  // normal and strong, or the ratings 1 (least sure) .. k (surest).
  function scaleLevels(s) {
    if (s.kind === "rating" && s.levels >= 2) {
      return Array.from({ length: s.levels }, (_, i) => [i + 1, String(i + 1)]);
    }
    return [["weak", "Unsure"], ["normal", "Fairly sure"], ["strong", "Sure"]];
  }

  function surest() {
    const levels = scaleLevels(scale);
    return levels[levels.length - 1][0];
  }

  function renderConfidence(s) {
    scale = s;
    const box = $("confidence-buttons");
    box.textContent = "";
    const levels = scaleLevels(s);
    levels.forEach(([value, text], i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = text;
      b.dataset.confidence = String(value);
      b.setAttribute("aria-pressed", "false");
      if (s.kind === "rating") {
        b.className = "rating";
        b.title = i === 0 ? "least sure" : i === levels.length - 1 ? "surest" : "";
        b.setAttribute("aria-label", text + (b.title ? " (" + b.title + ")" : ""));
      }
      b.onclick = () => {
        confidence = confidence === value ? null : value;
        for (const other of box.children) {
          other.setAttribute("aria-pressed", String(other.dataset.confidence === String(confidence)));
        }
      };
      box.appendChild(b);
    });
    $("confidence").classList.toggle("rating", s.kind === "rating");
    $("confidence-label").textContent = s.kind === "rating"
      ? "How sure are you? 1 = least sure, " + levels.length + " = surest" : "How sure are you?";
  }

  function markRanks() {
    for (const el of document.querySelectorAll(".option")) {
      const i = Number(el.dataset.option);
      const r = ranking.indexOf(i);
      el.classList.toggle("ranked", r >= 0);
      let badge = el.querySelector(".rank");
      if (r >= 0) {
        if (!badge) { badge = document.createElement("span"); badge.className = "rank"; el.querySelector(".label").appendChild(badge); }
        badge.textContent = String(r + 1);
      } else if (badge) badge.remove();
    }
    updateEnabled();
  }

  function pick(optionIndex, sure) {
    if (!question || sending || soundsLeft > 0) return;
    if (question.kind === "ranking") {
      const at = ranking.indexOf(optionIndex);
      if (at >= 0 && at === ranking.length - 1) ranking.pop();   // the last one ranked: undone
      else if (at < 0) ranking.push(optionIndex);
      markRanks();
      return;
    }
    send({ chosen: optionIndex }, sure);
  }

  async function send(answer, sure) {
    if (sending) return;
    sending = true;
    $("question").dataset.question = "";
    updateEnabled();
    const doc = { question: question.question, answer,
                  response_time: Math.max(0, (performance.now() - shownAt) / 1000) };
    const conf = sure ? surest() : confidence;
    if (conf && (question.kind === "duel" || question.kind === "choice") && !answer.tie) doc.confidence = conf;
    setPending(doc);
    await deliver(doc);
  }

  // Sends the pending answer until the server has it (or refuses it).
  async function deliver(doc) {
    let reply = null;
    try {
      reply = await persist(() => api("POST", "/api/answer", doc));
    } catch (e) {
      if (e.status === 401) return rejoinAndContinue();
      // 409: the question was answered (or changed) meanwhile; anything
      // else is shown, and the open question asked again
      if (e.status !== 409) message(e.message);
    }
    setPending(null);
    if (reply) {
      progress(reply.answers, reply.budget);
      answersSinceBreak++;
      if (!reply.done && info.break_every > 0 && reply.answers % info.break_every === 0) {
        show("break");
        $("continue").focus();
        $("continue").onclick = () => next();
        return;
      }
    }
    await next();
  }

  async function next() {
    message("");
    let q;
    try {
      q = await persist(() => api("GET", "/api/question"));
    } catch (e) {
      if (e.status === 401) return rejoinAndContinue();
      message(e.message);
      return;
    }
    if (q.done) return finish(q);
    await render(q);
  }

  async function rejoinAndContinue() {
    token = null;
    save({});
    if (externalId) { await join(); return next(); }
    message("Your session on this device has ended. Start again to continue.");
    welcome();
  }

  function finish(doc) {
    question = null;
    clearBlobs();
    progress(doc.answers, doc.budget);
    show("done");
    if (doc.completion_url) {
      $("completion").hidden = false;
      $("completion-link").href = doc.completion_url;
      $("done-text").textContent = "You have answered every question. Taking you back to finish the study…";
      setTimeout(() => { location.href = doc.completion_url; }, 3000);
    }
  }

  // ---- Keys and buttons -----------------------------------------------------------------

  function placeOption(place) {
    return question && place < question.shown_order.length ? question.shown_order[place] : -1;
  }

  document.addEventListener("keydown", (ev) => {
    if (!$("break").hidden && ev.key === "Enter") { ev.preventDefault(); next(); return; }
    if (!question || $("question").hidden || ev.target.tagName === "INPUT") return;
    const k = ev.key;
    if (question.kind === "duel") {
      if (k === "ArrowLeft" || k === "a" || k === "A") pick(placeOption(0), ev.shiftKey);
      else if (k === "ArrowRight" || k === "b" || k === "B") pick(placeOption(1), ev.shiftKey);
      else if ((k === "t" || k === "T") && info.ties) send({ tie: true }, false);
      else return;
    } else if (question.kind === "choice" || question.kind === "ranking") {
      // Shift+digit arrives as a symbol on most layouts: the code names the digit
      const m = /^Digit([1-9])$/.exec(ev.code) || /^Numpad([1-9])$/.exec(ev.code);
      if (m) pick(placeOption(Number(m[1]) - 1), ev.shiftKey);
      else if (question.kind === "ranking" && k === "Backspace") { ranking.pop(); markRanks(); }
      else if (question.kind === "ranking" && k === "Enter") $("rank-confirm").click();
      else return;
    } else return;
    ev.preventDefault();
  });

  $("tie").onclick = () => send({ tie: true }, false);
  $("rank-undo").onclick = () => { ranking.pop(); markRanks(); };
  $("rank-confirm").onclick = () => {
    if (question && ranking.length === question.options.length) send({ ranking: ranking.slice() }, false);
  };
  $("value-send").onclick = () => {
    const v = Number($("value-input").value);
    if ($("value-input").value.trim() === "" || !Number.isFinite(v)) { message("Enter a number, or report that it failed."); return; }
    send({ value: v }, false);
  };
  $("value-input").addEventListener("keydown", (ev) => { if (ev.key === "Enter") $("value-send").click(); });
  $("value-failed").onclick = () => send({ failed: true }, false);

  // ---- Start ------------------------------------------------------------------------------

  async function start() {
    try {
      info = await persist(() => api("GET", "/api/info"));
    } catch (e) {
      $("title").textContent = "This study cannot be opened";
      message(e.message);
      return;
    }
    $("title").textContent = info.title || "Study";
    document.title = info.title || "Study";
    const s = saved();
    // a link with another external id is another person on this device
    if (s.token && (!externalId || s.external_id === externalId)) token = s.token;
    if (!token && externalId && !info.consent) {
      try { await join(); } catch (e) { message(e.message); welcome(); return; }
    }
    if (!token) { welcome(); return; }
    if (s.pending) { await deliver(s.pending); return; }
    await next();
  }

  start();
})();
