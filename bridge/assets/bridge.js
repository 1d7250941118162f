// chessclock-bridge pages: the live state from /api/v1/events (Server-Sent Events), with the
// running side's time extrapolated from the snapshot's instant; the clock a URL names, the
// round's paper boards (boards without an e-board: players and result), the players, the
// round, a board's diagram (the pieces of bridge/assets/pieces.svg, served by the bridge: no
// internet needed) or why there is none, and how old each board's data is (the stream's
// heartbeat and the daemon's last answer: "stale"). With fleet = true, every machine's
// boards too (/api/v1/fleet, re-read every 2 s), and a board of another machine named
// board:N (?host= when two machines have it). No build step, no library.
"use strict";

const Bridge = {
  clocks: new Map(), // index -> {st, recv, age}
  last: new Map(), // index -> last game event
  paper: new Map(), // board -> {board, game_info, result}: the round's boards without an e-board
  daemon: null,
  link: false,
  heard: 0, // performance.now() of the stream's last event (heartbeats too)
  beat: null, // the last heartbeat: {at, now_us, answered_us, every_ms}
  fleet: new Map(), // host/index -> {st, recv, age}: every machine's boards (fleet = true)
  fleetOn: false, // the bridge follows the fleet
  fleetHost: "", // this machine's name in the fleet
  fleetAt: 0, // performance.now() of the last answer of /api/v1/fleet
  listeners: [],

  start(onChange) {
    this.listeners.push(onChange);
    const es = new EventSource("/api/v1/events");
    const on = (kind, f) => es.addEventListener(kind, (e) => {
      this.heard = performance.now();
      f(JSON.parse(e.data));
      this.changed();
    });
    on("snapshot", (d) => {
      this.daemon = d.daemon;
      this.clocks.clear();
      for (const c of d.clocks) this.put(c, d.now_us);
      this.setPaper(d.paper);
    });
    on("clock", (d) => this.put(d.clock, d.now_us));
    on("removed", (d) => { this.clocks.delete(d.index); this.last.delete(d.index); });
    on("daemon", (d) => { this.daemon = d.daemon; this.clocks.clear(); this.paper.clear(); });
    on("paper", (d) => this.setPaper(d.paper));
    on("heartbeat", (d) => {
      this.beat = { at: performance.now(), now_us: d.now_us, answered_us: d.answered_us, every_ms: d.every_ms };
    });
    for (const kind of ["pressed", "flag", "result", "state_changed"]) {
      on(kind, (d) => this.last.set(d.index, d));
    }
    this.followFleet();
    es.onopen = () => { this.link = true; this.heard = performance.now(); this.changed(); };
    es.onerror = () => { this.link = false; this.changed(); };
    // One judge for the whole page (no timer per board): the pages are drawn again when a
    // board goes stale or comes back, which no event says.
    setInterval(() => {
      const key = [...this.clocks.values()].map((c) => (this.stale(c) || {}).text || "").join("|");
      if (key !== this.staleKey) { this.staleKey = key; this.changed(); }
    }, 1000);
  },

  // Re-read the fleet every 2 s for as long as the bridge follows one (a 404: it does not).
  // Its boards' instants are on this bridge's clock (its now_us), as the snapshot's are.
  async followFleet() {
    for (;;) {
      let r = null;
      try {
        r = await fetch("/api/v1/fleet", { cache: "no-store" });
      } catch (e) {
        r = null;
      }
      if (r && r.status === 404) return;
      if (r && r.ok) {
        const d = await r.json();
        const recv = performance.now();
        this.fleetOn = true;
        this.fleetHost = d.host;
        this.fleetAt = recv;
        this.fleet = new Map(d.boards.map((b) => [b.host + "/" + b.index,
          { st: b, recv, age: Math.max(0, (d.now_us - b.as_of_us) / 1000) }]));
        this.changed();
      }
      await new Promise((done) => setTimeout(done, 2000));
    }
  },

  // Board `n` of another machine of the fleet (the URL's ?host= when it names one), as
  // find answers, or null.
  remote(n) {
    if (!this.fleetOn) return null;
    const host = new URLSearchParams(location.search).get("host");
    const found = [...this.fleet.values()].filter((c) => c.st.board === n && c.st.host !== this.fleetHost
      && (!host || c.st.host === host));
    if (found.length > 1)
      return { error: `board ${n} is on ${found.map((c) => c.st.host).join(" and ")}: name one with ?host=` };
    return found.length ? { clock: found[0] } : null;
  },

  setPaper(list) {
    this.paper.clear();
    for (const p of list || []) this.paper.set(p.board, p);
  },

  // The paper boards no clock plays (a clock attached later for a paper board's number shows
  // that board), in board order.
  paperBoards() {
    const played = new Set([...this.clocks.values()].map((c) => c.st.board));
    return [...this.paper.values()].filter((p) => !played.has(p.board)).sort((a, b) => a.board - b.board);
  },

  // How long without news makes data stale: three heartbeats.
  staleMs() {
    return 3 * ((this.beat && this.beat.every_ms) || 5000);
  },

  // Whether the stream itself is down: no event (heartbeats included) for staleMs, whether
  // the connection broke (the browser reconnects: a short break is not news) or hangs.
  streamDown() {
    return this.heard > 0 && performance.now() - this.heard > this.staleMs();
  },

  // How long ago chessclockd last answered the bridge (ms), by the last heartbeat; null when
  // the bridge does not say (a delayed bridge).
  answeredAgo() {
    const b = this.beat;
    if (!b || b.answered_us === null || b.answered_us === undefined) return null;
    return performance.now() - b.at + Math.max(0, b.now_us - b.answered_us) / 1000;
  },

  // What the header says of the stream and the daemon: [words, ok].
  linkState() {
    const d = this.daemon;
    if (this.streamDown())
      return [`no news from the bridge for over ${Math.round(this.staleMs() / 1000)} s, reconnecting…`, false];
    if (!this.link) return ["bridge unreachable, reconnecting…", false];
    if (!d) return ["connecting…", false];
    if (!d.running) return [d.note, false];
    const ago = this.answeredAgo();
    if (ago !== null && ago > this.staleMs())
      return [`chessclockd ${d.version} does not answer the bridge (for over ${Math.round(this.staleMs() / 1000)} s)`, false];
    return [`chessclockd ${d.version} · ${d.note}`, true];
  },

  // Clock `c`'s data is stale, as a problem, or null: the stream is down, or nothing came for
  // this board for staleMs while the daemon has not answered the bridge either (the data's age
  // is the younger of the two; a board that has nothing to say is not stale while the daemon
  // answers). Judged by the page from the data's age, besides the daemon's not_responding.
  stale(c) {
    const limit = this.staleMs();
    const secs = Math.round(limit / 1000);
    if (this.streamDown()) {
      return { kind: "stale", rank: 0, text: `stale: no news from the bridge for over ${secs} s (the page's stream is down)`,
        fix: "check that chessclock-bridge runs and the network to it; the page reconnects by itself" };
    }
    const answered = this.answeredAgo();
    if (answered === null || Math.min(performance.now() - c.recv, answered) <= limit) return null;
    return { kind: "stale", rank: 0, text: `stale clock: no update for over ${secs} s (chessclockd does not answer the bridge)`,
      fix: "check chessclockd: systemctl status chessclockd; journalctl -u chessclockd" };
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

  // What needs the operator, most urgent first: the status's own list (the api crate's
  // attention module makes it; the CLI's status and watch show the same), after the page's
  // own judgement that the data is stale.
  problems(st) {
    const c = this.clocks.get(st.index);
    const stale = c && c.st === st ? this.stale(c) : null;
    return stale ? [stale, ...(st.problems || [])] : st.problems || [];
  },

  // The urgency of a board: its most urgent problem's rank (0 first), 9 when nothing needs
  // the operator (rank 4 is only worth knowing).
  rank(st) {
    const p = this.problems(st).filter((x) => x.rank < 4);
    return p.length ? Math.min(...p.map((x) => x.rank)) : 9;
  },

  // The clock a URL names, as chessclockctl names one (chessclock_api::select): board:N (the
  // board of the round), an index, a name (one clock only), a port, a board serial.
  find(name) {
    const all = [...this.clocks.values()];
    const one = (pred, what) => {
      const found = all.filter((c) => pred(c.st));
      if (found.length > 1)
        return { error: `${found.length} clocks have ${what}: ${found.map((c) => c.st.index).join(", ")}` };
      return found.length ? { clock: found[0] } : null;
    };
    const board = /^board:(\d+)$/.exec(name);
    const host = new URLSearchParams(location.search).get("host");
    if (board && this.fleetOn && host && host !== this.fleetHost)
      return this.remote(Number(board[1])) || { error: `${host} has no board ${board[1]}` };
    if (board) return one((st) => st.board === Number(board[1]), `board ${board[1]}`)
      || this.remote(Number(board[1])) || { error: `no clock plays board ${board[1]}` };
    if (/^\d+$/.test(name) && this.clocks.has(Number(name))) return { clock: this.clocks.get(Number(name)) };
    return one((st) => st.name === name, `the name "${name}"`)
      || one((st) => st.port === name, `the port ${name}`)
      || one((st) => st.board_serial !== "" && st.board_serial === name, `board serial ${name}`)
      || { error: `no clock ${name}` };
  },

  // The paper board a URL names (`board:N`, a board of the round no clock plays), or null.
  findPaper(name) {
    const board = /^board:(\d+)$/.exec(name);
    return board ? this.paperBoards().find((p) => p.board === Number(board[1])) || null : null;
  },

  // A side's player as the pairings gave them: {name, title, elo, team}.
  player(st, side) {
    const tag = side === "white" ? "White" : "Black";
    const g = st.game_info || {};
    const v = (k) => { const x = (g[tag + k] || "").trim(); return x && x !== "?" && x !== "-" && x !== "0" ? x : ""; };
    return { name: v("") || (side === "white" ? "White" : "Black"), title: v("Title"), elo: v("Elo"),
      team: v("Team") || v("Fed") };
  },

  // The round of the boards (`list`, statuses: this daemon's clocks by default): the R of
  // their `Round "R.B"` tags, most common first.
  round(list) {
    const seen = new Map();
    for (const st of list || [...this.clocks.values()].map((c) => c.st)) {
      const r = ((st.game_info || {}).Round || "").split(".")[0];
      if (/^\d+$/.test(r)) seen.set(r, (seen.get(r) || 0) + 1);
    }
    return [...seen.entries()].sort((a, b) => b[1] - a[1]).map((x) => x[0])[0] || "";
  },

  // The event of the boards (their Event tag, most common; `list` as for round).
  event(list) {
    const seen = new Map();
    for (const st of list || [...this.clocks.values()].map((c) => c.st)) {
      const e = ((st.game_info || {}).Event || "").trim();
      if (e && e !== "?") seen.set(e, (seen.get(e) || 0) + 1);
    }
    return [...seen.entries()].sort((a, b) => b[1] - a[1]).map((x) => x[0])[0] || "";
  },

  // The last move as a reader writes it: `23... Nf6`.
  lastMove(st) {
    const m = st.last_move;
    return m ? `${m.number}${m.side === "white" ? "." : "..."} ${m.san}` : "";
  },

  // The result and why: `1-0 · checkmate`.
  result(st) {
    if (!st.result) return st.status === "ended" ? "ended" : "";
    return st.result + (st.reason ? " · " + st.reason.replaceAll("_", " ") : "");
  },

  // Whose turn: the running side, else the side after the presses, else the side to move in
  // the position.
  turn(st) {
    if (st.result) return "";
    if (st.running) return st.running;
    const m = st.moves || {};
    if (m.white + m.black > 0) return m.white > m.black ? "black" : "white";
    const f = (st.fen || "").split(" ")[1];
    return f === "w" ? "white" : f === "b" ? "black" : "";
  },

  // Whether the clock's position is known: the daemon gives none (an empty FEN), or gives the
  // start position with no move read while the clock has counted presses (a clock without an
  // e-board, or a board that read no move: its diagram would show the start as the game).
  positionKnown(st) {
    if (!st.fen) return false;
    const m = st.moves || {};
    const start = st.fen.split(" ")[0] === "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    return !(start && !(st.moves_san || []).length && (m.white || 0) + (m.black || 0) > 0);
  },

  // What stands where a diagram cannot: a board that shows no position (`why`).
  noDiagram(why) {
    const e = this.el("div", "nodia", why);
    e.setAttribute("role", "img");
    return e;
  },

  // A board's diagram, or a placeholder saying why its position is not known.
  boardView(st) {
    if (this.positionKnown(st)) return this.diagram(st.fen, (st.last_move || {}).uci);
    return this.noDiagram(st.fen ? "no board position: the clock counted presses, the pieces no move"
      : "no board: the position is not known");
  },

  // The command that enters (or corrects) a paper board's result.
  paperFix(p) {
    return `chessclockctl round result ${p.board} 1-0|0-1|1/2-1/2`;
  },

  // The piece set (bridge/assets/pieces.svg), put in the page once.
  pieces() {
    if (this.piecesAsked) return;
    this.piecesAsked = true;
    fetch("/assets/pieces.svg").then((r) => r.text()).then((t) => {
      const holder = document.createElement("div");
      holder.hidden = true;
      holder.innerHTML = t;
      document.body.prepend(holder);
    });
  },

  // A diagram of `fen` (White at the bottom) with the squares of `uci` marked: an SVG.
  diagram(fen, uci) {
    this.pieces();
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 360 360");
    svg.setAttribute("class", "diagram");
    svg.setAttribute("role", "img");
    const marked = new Set();
    if (uci && uci.length >= 4) { marked.add(uci.slice(0, 2)); marked.add(uci.slice(2, 4)); }
    const rows = (fen || "8/8/8/8/8/8/8/8").split(" ")[0].split("/");
    const add = (tag, attrs) => {
      const e = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      svg.append(e);
      return e;
    };
    for (let r = 0; r < 8; r++) {
      for (let f = 0; f < 8; f++) {
        const sq = "abcdefgh"[f] + (8 - r);
        const cls = ((r + f) % 2 ? "dark" : "light") + (marked.has(sq) ? " last" : "");
        add("rect", { x: f * 45, y: r * 45, width: 45, height: 45, class: "sq " + cls, "data-square": sq });
      }
    }
    let label = [];
    rows.slice(0, 8).forEach((row, r) => {
      let f = 0;
      for (const ch of row) {
        if (/\d/.test(ch)) { f += Number(ch); continue; }
        const id = (ch === ch.toUpperCase() ? "w" : "b") + ch.toUpperCase();
        const use = add("use", { href: "#cc-" + id, x: f * 45, y: r * 45, width: 45, height: 45,
          "data-piece": id, "data-square": "abcdefgh"[f] + (8 - r) });
        use.setAttribute("class", "piece");
        label.push(id + "abcdefgh"[f] + (8 - r));
        f += 1;
      }
    });
    svg.setAttribute("aria-label", "position: " + label.join(" "));
    svg.dataset.fen = fen || "";
    svg.dataset.last = uci || "";
    return svg;
  },

  el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  },
};
