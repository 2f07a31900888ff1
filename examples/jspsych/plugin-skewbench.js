// plugin-skewbench.js — a jsPsych plugin that asks one question of a
// SkewBench study served by `skewgp serve` and sends the answer back
// (the protocol of `skewgp serve --help`). Each trial: join the study
// the first time (with the Prolific PID of the page's URL when there is
// one), GET /api/question, show the options in the order the server
// chose (their positions are recorded), take a click (or the arrow keys
// for a duel), POST /api/answer with the response time measured from
// when the options were on screen, and finish with the answer in the
// trial's data. When the participant is done the trial finishes at once
// with `skewbench_done: true` (and the study's completion URL): use it to
// end a loop.
//
// Data of a trial: participant, question, kind, options (the settings),
// shown_order, chosen / ranking / tie, rt (ms), answers, budget,
// skewbench_done, completion_url.
var jsPsychSkewbench = (function (jspsych) {
  "use strict";

  const info = {
    name: "skewbench",
    version: "1.0.0",
    parameters: {
      /** The study server's address, e.g. "https://study.example.org/". */
      server: { type: jspsych.ParameterType.STRING, default: undefined },
      /** An external id (e.g. a Prolific PID); null: the page URL's PROLIFIC_PID. */
      external_id: { type: jspsych.ParameterType.STRING, default: null },
      /** Whether the participant consented (when the study asks for consent). */
      consent: { type: jspsych.ParameterType.BOOL, default: true },
      /** Text above the options; null: the study's own wording. */
      prompt: { type: jspsych.ParameterType.HTML_STRING, default: null },
    },
    data: {
      participant: { type: jspsych.ParameterType.STRING },
      question: { type: jspsych.ParameterType.INT },
      kind: { type: jspsych.ParameterType.STRING },
      shown_order: { type: jspsych.ParameterType.INT, array: true },
      chosen: { type: jspsych.ParameterType.INT },
      ranking: { type: jspsych.ParameterType.INT, array: true },
      tie: { type: jspsych.ParameterType.BOOL },
      rt: { type: jspsych.ParameterType.INT },
      skewbench_done: { type: jspsych.ParameterType.BOOL },
    },
  };

  const STORE = "skewbench-jspsych";
  let studyInfo = null;

  function base(server) {
    return server.endsWith("/") ? server : server + "/";
  }

  async function call(server, method, path, token, body) {
    // the answer is kept and sent again while the server cannot be reached
    for (let wait = 500; ; wait = Math.min(2 * wait, 8000)) {
      let res;
      try {
        const headers = { "Content-Type": "application/json" };
        if (token) headers.Authorization = "Bearer " + token;
        res = await fetch(base(server) + path, {
          method, headers, body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (e) {
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      if (res.status === 429 || res.status === 503) {
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      const doc = await res.json().catch(() => null);
      return { status: res.status, doc };
    }
  }

  class SkewbenchPlugin {
    constructor(jsPsych) {
      this.jsPsych = jsPsych;
    }

    async session(trial) {
      let saved = null;
      try { saved = JSON.parse(sessionStorage.getItem(STORE) || "null"); } catch (e) { saved = null; }
      if (saved && saved.server === trial.server) return saved;
      const external = trial.external_id || this.jsPsych.data.getURLVariable("PROLIFIC_PID") || null;
      const body = {};
      if (external) body.external_id = external;
      if (trial.consent) body.consent = true;
      const r = await call(trial.server, "POST", "api/join", null, body);
      if (r.status !== 200) throw new Error((r.doc && r.doc.error) || "join failed: " + r.status);
      const s = { server: trial.server, participant: r.doc.participant, token: r.doc.token };
      sessionStorage.setItem(STORE, JSON.stringify(s));
      return s;
    }

    async stimulus(trial, s, stim) {
      const box = document.createElement("div");
      box.style.cssText = "min-width:140px;min-height:100px;display:flex;flex-direction:column;" +
                          "align-items:center;justify-content:center;gap:6px";
      if (stim.kind === "colour") {
        const sw = document.createElement("div");
        sw.style.cssText = "width:160px;height:120px;border:10px solid #919191;border-radius:6px";
        sw.style.backgroundColor = stim.rgb;
        box.appendChild(sw);
      } else if (stim.kind === "image" || stim.kind === "sound") {
        const res = await fetch(base(trial.server) + stim.url.replace(/^\//, ""),
                                { headers: { Authorization: "Bearer " + s.token } });
        const url = URL.createObjectURL(await res.blob());
        const el = document.createElement(stim.kind === "image" ? "img" : "audio");
        el.src = url;
        if (stim.kind === "image") el.style.cssText = "max-width:320px;max-height:40vh";
        else el.controls = true;
        box.appendChild(el);
      } else {
        box.textContent = stim.text || "";
      }
      if (stim.caption) {
        const c = document.createElement("div");
        c.textContent = stim.caption;
        box.appendChild(c);
      }
      return box;
    }

    trial(display_element, trial) {
      this.run(display_element, trial).catch((e) => {
        display_element.textContent = "The study cannot be reached: " + e.message;
      });
    }

    async run(display_element, trial) {
      const s = await this.session(trial);
      if (!studyInfo) studyInfo = (await call(trial.server, "GET", "api/info")).doc;
      const got = await call(trial.server, "GET", "api/question", s.token);
      if (got.status !== 200) throw new Error((got.doc && got.doc.error) || String(got.status));
      const q = got.doc;
      if (q.done) {
        display_element.innerHTML = "";
        this.jsPsych.finishTrial({ participant: s.participant, skewbench_done: true,
                                   completion_url: q.completion_url || null,
                                   answers: q.answers, budget: q.budget });
        return;
      }
      display_element.innerHTML = "";
      const prompt = document.createElement("p");
      prompt.innerHTML = trial.prompt || (q.kind === "ranking"
        ? "Click the options from best to worst." : (studyInfo && studyInfo.prompt) || "Which do you prefer?");
      display_element.appendChild(prompt);
      const row = document.createElement("div");
      row.style.cssText = "display:flex;gap:16px;justify-content:center;flex-wrap:wrap";
      display_element.appendChild(row);
      const boxes = await Promise.all(q.shown_order.map((i) => this.stimulus(trial, s, q.stimuli[i])));
      const ranking = [];
      let start = 0;
      let answered = false;
      const finish = async (answer) => {
        if (answered) return;
        answered = true;
        const rt = Math.round(performance.now() - start);
        const body = { question: q.question, answer, response_time: rt / 1000 };
        const r = await call(trial.server, "POST", "api/answer", s.token, body);
        // 409: this question was answered already (a retry): the next trial asks again
        if (r.status !== 200 && r.status !== 409)
          throw new Error((r.doc && r.doc.error) || String(r.status));
        this.jsPsych.pluginAPI.cancelAllKeyboardResponses();
        display_element.innerHTML = "";
        this.jsPsych.finishTrial(Object.assign({
          participant: s.participant, question: q.question, kind: q.kind, options: q.options,
          shown_order: q.shown_order, rt, skewbench_done: false,
          answers: r.doc && r.doc.answers, budget: r.doc && r.doc.budget,
        }, answer));
      };
      q.shown_order.forEach((optionIndex, place) => {
        const b = document.createElement("button");
        b.className = "jspsych-btn skewbench-option";
        b.dataset.place = String(place);
        b.appendChild(boxes[place]);
        b.addEventListener("click", () => {
          if (q.kind !== "ranking") return finish({ chosen: optionIndex });
          if (ranking.includes(optionIndex)) return;
          ranking.push(optionIndex);
          b.disabled = true;
          b.appendChild(document.createTextNode(" #" + ranking.length));
          if (ranking.length === q.options.length) finish({ ranking: ranking.slice() });
        });
        row.appendChild(b);
      });
      if (q.kind === "duel" && studyInfo && studyInfo.ties) {
        const tie = document.createElement("button");
        tie.className = "jspsych-btn skewbench-tie";
        tie.textContent = "About the same";
        tie.addEventListener("click", () => finish({ tie: true }));
        display_element.appendChild(tie);
      }
      if (q.kind === "duel") {
        this.jsPsych.pluginAPI.getKeyboardResponse({
          callback_function: (info) => finish({ chosen: q.shown_order[info.key === "arrowleft" ? 0 : 1] }),
          valid_responses: ["arrowleft", "arrowright"], persist: false, allow_held_key: false,
        });
      }
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      start = performance.now();
    }
  }
  SkewbenchPlugin.info = info;
  return SkewbenchPlugin;
})(jsPsychModule);
