// chessclock-bridge pages: the live state from /api/v1/events (Server-Sent Events), with the
// running side's time extrapolated from the snapshot's instant. No build step, no library.
"use strict";

const Bridge = {
  clocks: new Map(), // index -> {st, recv, age}
  last: new Map(), // index -> last game event
  daemon: null,
  link: false,
  listeners: [],

  start(onChange) {
    this.listeners.push(onChange);
    const es = new EventSource("/api/v1/events");
    const on = (kind, f) => es.addEventListener(kind, (e) => { f(JSON.parse(e.data)); this.changed(); });
    on("snapshot", (d) => {
      this.daemon = d.daemon;
      this.clocks.clear();
      for (const c of d.clocks) this.put(c, d.now_us);
    });
    on("clock", (d) => this.put(d.clock, d.now_us));
    on("removed", (d) => { this.clocks.delete(d.index); this.last.delete(d.index); });
    on("daemon", (d) => { this.daemon = d.daemon; this.clocks.clear(); });
    for (const kind of ["pressed", "flag", "result", "state_changed"]) {
      on(kind, (d) => this.last.set(d.index, d));
    }
    es.onopen = () => { this.link = true; this.changed(); };
    es.onerror = () => { this.link = false; this.changed(); };
  },

  changed() {
    document.body.dataset.updated = String(Date.now());
    for (const f of this.listeners) f();
  },

  put(st, nowUs) {
    this.clocks.set(st.index, { st, recv: performance.now(), age: Math.max(0, (nowUs - st.as_of_us) / 1000) });
  },

  // A side's value now: the snapshot's, less the time since its instant for the running side
  // (after what is left of a delay window). The waiting side gains as much of that time as the
  // daemon says flows to it (flows_ms: hourglass, phased swing); under count-up (counts_up)
  // the running side's value rises instead. The engine's rule
  // (chessclock_engine::Run); the notation is never read.
  ms(c, side) {
    const st = c.st;
    const base = side === "white" ? st.white_ms : st.black_ms;
    if (st.status !== "running" || !st.running) return base;
    const runner = st.running;
    let elapsed = performance.now() - c.recv + c.age;
    const delay = (st.detail[runner] || {}).delay_left_ms;
    if (delay) elapsed = Math.max(0, elapsed - delay);
    if (st.running === side) return st.counts_up ? base + elapsed : Math.max(0, base - elapsed);
    return base + Math.min(elapsed, st.flows_ms || 0);
  },

  // As the clock shows it: M:SS or H:MM:SS, seconds rounded up.
  text(ms) {
    const s = Math.ceil(ms / 1000);
    const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    const two = (x) => String(x).padStart(2, "0");
    return h > 0 ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
  },

  // What a side's phase means to a viewer.
  phase(st, side) {
    const p = st.phase[side] || "";
    const d = st.detail[side] || {};
    const bits = [];
    const name = p.replace("+cap", "");
    if (name && name !== "main" && name !== "sd") bits.push(name);
    if (p.endsWith("+cap")) bits.push("capped");
    if (d.periods_left !== undefined) bits.push(`${d.periods_left} periods`);
    if (d.stones_left !== undefined) bits.push(`${d.stones_left} stones`);
    if (d.can_win === false) bits.push("cannot win");
    if (d.delay_left_ms) bits.push(`delay ${Math.ceil(d.delay_left_ms / 1000)}s`);
    return bits.join(" · ");
  },

  // What needs the operator, most urgent first: [rank, text].
  problems(st) {
    const p = [];
    if (st.device_state === "disconnected" || !st.connected) p.push([0, "board missing"]);
    if (st.device_state === "not_responding") p.push([1, "clock not responding"]);
    if (st.device_state === "not_in_pc_mode")
      p.push([1, `not in PC mode: select option ${st.model === "DGT XL" ? 23 : 25} on the clock`]);
    if (st.device_state === "no_clock") p.push([1, "no clock on the board"]);
    if (st.claim)
      p.push([1, `${st.claim.side} claims insufficient losing chances: the director rules`]);
    else if (st.status === "paused") p.push([2, "paused mid-game"]);
    if (st.watched) p.push([4, `${st.watched} watched by the director (USCF 14H)`]);
    if ((st.draw_claimable || []).length)
      p.push([4, "draw claimable: " + st.draw_claimable.join(", ").replaceAll("_", "-")]);
    if (st.status === "flagged" || (st.flags || []).length)
      p.push([3, "flag: " + (st.flags || []).map((f) => `${f.side} (${f.reason})`).join(", ")]);
    return p;
  },

  el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  },
};
