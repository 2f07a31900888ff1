// experiment.js — a jsPsych timeline around a SkewBench study: a consent
// screen, then the study's questions one trial each (plugin-skewbench.js)
// until the participant is done, then a thank-you screen that sends them
// on to the study's completion URL (Prolific's) when it has one.
//
// The study server is ?server=URL of this page (default the address
// skewgp serve listens on by default). Serve this folder from the origin
// you give skewgp serve with --origin (see README.md).
"use strict";

const server = new URLSearchParams(location.search).get("server") || "http://127.0.0.1:8080/";
const jsPsych = initJsPsych({
  on_finish: () => {
    const last = jsPsych.data.get().filter({ skewbench_done: true }).values()[0];
    if (last && last.completion_url) location.href = last.completion_url;
  },
});

const consent = {
  type: jsPsychHtmlButtonResponse,
  stimulus: "<p>You will see a few options at a time and choose the one you prefer.</p>" +
            "<p>Your answers are stored under a code, not your name.</p>",
  choices: ["I agree to take part"],
};

const question = { type: jsPsychSkewbench, server };
const questions = {
  timeline: [question],
  // ask until the server says this participant is done
  loop_function: (data) => !data.values()[0].skewbench_done,
};

const thanks = {
  type: jsPsychHtmlButtonResponse,
  stimulus: "<p>Thank you: you have answered every question.</p>",
  choices: ["Finish"],
};

jsPsych.run([consent, questions, thanks]);
