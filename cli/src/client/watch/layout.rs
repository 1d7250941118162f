//! What `watch` draws: the venue's clocks fitted to the terminal, as lines of text. Pure (no
//! terminal, no bus, no clock reads: the caller passes the time since the read and the wall
//! time), so every size is tested here.
//!
//! Narrow terminals (80×24) get a grid of compact cells (board number, players, both times,
//! state), two per line at 80 columns, so 40 boards fit under the header; wide ones get a
//! line per board with phase, moves, last move, result and what needs attention (the
//! api's one list of a board's problems). More boards than fit are paged, and the footer says so.

use chessclock_api::{ClockStatus, Side};

use crate::client::render::truncate;
use chessclock_engine::clock_text;

/// Whether the daemon can be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Daemon {
    /// Read; its clocks are shown.
    Up,
    /// Not on the bus (since the wall time given); waiting for it.
    Down { since: String, bus: String },
    /// No bus at all (the error); retrying.
    NoBus(String),
}

/// Everything one frame shows.
#[derive(Debug)]
pub(super) struct View<'a> {
    pub clocks: &'a [ClockStatus],
    /// Milliseconds since the clocks were read.
    pub elapsed_ms: u64,
    pub daemon: &'a Daemon,
    /// Wall time, `HH:MM:SS`.
    pub wall: &'a str,
    /// The page asked for (clamped to the pages there are).
    pub page: usize,
}

/// A drawn frame: at most `height` lines of at most `width` characters.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Frame {
    pub lines: Vec<String>,
    /// Pages of boards (1 when all fit).
    pub pages: usize,
}

/// Width of one grid cell; cells are separated by two spaces.
const CELL: usize = 38;
/// From this width on, one line per board with every column.
const WIDE: usize = 110;
/// Title, column header and footer.
const CHROME: usize = 3;

/// Draw `view` for a `width`×`height` terminal.
pub(super) fn render(view: &View<'_>, width: u16, height: u16) -> Frame {
    let (width, height) = (usize::from(width.max(20)), usize::from(height.max(4)));
    let mut lines = vec![title(view, width)];
    if *view.daemon != Daemon::Up {
        lines.push(String::new());
        lines.push(truncate(&daemon_note(view.daemon), width));
        return Frame { lines, pages: 1 };
    }
    if view.clocks.is_empty() {
        lines.push(String::new());
        lines.push(truncate(
            "no clocks attached (plug a board in, or `chessclockctl attach /dev/ttyACM0`)",
            width,
        ));
        return Frame { lines, pages: 1 };
    }
    let rows = height - CHROME.min(height - 1);
    let n = view.clocks.len();
    let columns = (width + 2) / (CELL + 2);
    let wide_fits = n <= rows;
    let grid_fits = n <= rows * columns.max(1);
    let wide = width >= WIDE && (wide_fits || !grid_fits);
    let per_page = if wide { rows } else { rows * columns.max(1) }.max(1);
    let pages = n.div_ceil(per_page);
    let page = view.page.min(pages - 1);
    let shown = &view.clocks[page * per_page..n.min((page + 1) * per_page)];
    if wide {
        lines.push(truncate(&wide_header(), width));
        lines.extend(
            shown
                .iter()
                .map(|c| truncate(&wide_line(c, view.elapsed_ms), width)),
        );
    } else {
        let columns = columns.max(1);
        let used_rows = shown.len().div_ceil(columns).min(rows);
        let header = vec![cell_header(); columns.min(shown.len())].join("  ");
        lines.push(truncate(&header, width));
        for r in 0..used_rows {
            // Column-major: the boards read down the first column, then the next.
            let cells: Vec<String> = (0..columns)
                .filter_map(|col| shown.get(col * used_rows + r))
                .map(|c| cell(c, view.elapsed_ms))
                .collect();
            lines.push(truncate(cells.join("  ").trim_end(), width));
        }
    }
    lines.push(truncate(&footer(view.clocks, page, pages), width));
    Frame { lines, pages }
}

/// Milliseconds until the frame next changes by itself: a running clock's shown second or
/// the wall clock's (`wall_subsec_ms` into its second). Other changes come as signals.
pub(super) fn next_change_ms(clocks: &[ClockStatus], elapsed_ms: u64, wall_subsec_ms: u64) -> u64 {
    let mut next = 1000 - wall_subsec_ms.min(999);
    for c in clocks {
        for side in [Side::White, Side::Black] {
            let before = c.ms_after(side, elapsed_ms);
            // A value shown rounded up changes when it crosses a whole second (down), or just
            // after it (up: hourglass, swing).
            let until = match before % 1000 {
                0 => 1000,
                r => r,
            };
            if c.ms_after(side, elapsed_ms + until) != before {
                next = next.min(until);
            }
        }
    }
    next + 1
}

fn title(view: &View<'_>, width: usize) -> String {
    let left = match view.daemon {
        Daemon::Up => {
            let n = view.clocks.len();
            let running = view.clocks.iter().filter(|c| c.status == "running").count();
            let alerts = view.clocks.iter().filter(|c| alert(c).is_some()).count();
            let boards = if n == 1 { "board" } else { "boards" };
            let mut t = format!("chessclockd  {n} {boards}, {running} running");
            if alerts > 0 {
                t.push_str(&format!(", {alerts} need attention"));
            }
            t
        }
        Daemon::Down { .. } => "chessclockd  not running".into(),
        Daemon::NoBus(_) => "chessclockd  no D-Bus".into(),
    };
    let room = width.saturating_sub(view.wall.len() + 1);
    format!("{:<room$} {}", truncate(&left, room), view.wall)
}

fn daemon_note(daemon: &Daemon) -> String {
    match daemon {
        Daemon::Up => String::new(),
        Daemon::Down { since, bus } => format!(
            "chessclockd is not running on {bus} (since {since}); waiting for it to come \
             back (`systemctl start chessclockd`). q quits."
        ),
        Daemon::NoBus(e) => format!("cannot reach D-Bus ({e}); retrying every second. q quits."),
    }
}

/// What needs the operator at this board most, in a few words, if anything: the first of
/// its problems ([`chessclock_api::attention`], the list the dashboard and `status` show),
/// or that a side can no longer win (a flag against it would draw).
pub(super) fn alert(c: &ClockStatus) -> Option<String> {
    chessclock_api::problems(c)
        .into_iter()
        .find(|p| p.rank < 4 || p.kind == "cannot_win")
        .map(|p| match p.kind.as_str() {
            "board_problem" => "board problem".to_owned(),
            "clock_control" => "clock vs control".to_owned(),
            "flag" => "flag".to_owned(),
            _ => p.text,
        })
}

/// Who plays at the board in a few characters: the players' surnames (`Carlsen-Ding`), else
/// the clock's name.
fn players(c: &ClockStatus) -> String {
    let surname = |tag: &str| {
        c.game_info
            .get(tag)
            .map(|n| n.split(',').next().unwrap_or(n).trim().to_owned())
            .filter(|n| !n.is_empty() && n != "?")
    };
    match (surname("White"), surname("Black")) {
        (None, None) => c.name.clone(),
        (w, b) => format!(
            "{}-{}",
            w.as_deref().unwrap_or("?"),
            b.as_deref().unwrap_or("?")
        ),
    }
}

/// The state of a board in at most five characters (alerts in capitals).
fn short_state(c: &ClockStatus) -> String {
    let s = match (c.device_state.as_str(), c.status.as_str()) {
        ("disconnected", _) => "GONE",
        _ if !c.connected => "GONE",
        ("not_in_pc_mode", _) => "NOPC",
        ("no_clock", _) => "NOCLK",
        ("not_responding", _) => "MUTE",
        ("opening" | "probing", _) => "open",
        _ if !c.board_problem.is_empty() => "BOARD",
        _ if !c.clock_problem.is_empty() => "CTRL",
        _ if c.claim.is_some() => "CLAIM",
        (_, "flagged") => "FLAG",
        (_, "paused") if c.moves.white + c.moves.black > 0 => "PAUSE",
        _ if c.battery_low => "BATT",
        (_, "running") if !c.draw_claimable.is_empty() => "DRAW?",
        (_, "running") => "run",
        (_, "paused") => "pause",
        (_, "ended") => match c.result.as_deref() {
            Some("1/2-1/2") => "draw",
            Some(r) => return r.to_owned(),
            None => "end",
        },
        _ => "ready",
    };
    s.to_owned()
}

fn times(c: &ClockStatus, elapsed_ms: u64, width: usize) -> [String; 2] {
    [Side::White, Side::Black].map(|side| {
        let mark = if c.running == Some(side) { "*" } else { "" };
        let t = format!("{mark}{}", clock_text(c.ms_after(side, elapsed_ms)));
        format!("{t:>width$}")
    })
}

fn cell_header() -> String {
    format!(
        "{:>3} {:<10} {:>8} {:>8} {:<5}",
        "BD", "PLAYERS", "WHITE", "BLACK", "STATE"
    )
}

fn cell(c: &ClockStatus, elapsed_ms: u64) -> String {
    let [w, b] = times(c, elapsed_ms, 8);
    format!(
        "{:>3} {:<10} {w} {b} {:<5}",
        c.board,
        truncate(&players(c), 10),
        short_state(c)
    )
}

fn wide_header() -> String {
    format!(
        "{:>5} {:<24} {:>9} {:>9} {:<15} {:>4} {:<10} {:<7} {}",
        "BOARD", "PLAYERS", "WHITE", "BLACK", "PHASE", "MOVE", "LAST", "RESULT", "STATE"
    )
}

fn wide_line(c: &ClockStatus, elapsed_ms: u64) -> String {
    let [w, b] = times(c, elapsed_ms, 9);
    let phase = if c.phase.white == c.phase.black {
        c.phase.white.clone()
    } else {
        format!("{}/{}", c.phase.white, c.phase.black)
    };
    let last_move = chessclock_api::last_move::last_move(&c.moves_san, &c.game_info);
    let (number, last) = match last_move {
        Some(m) => {
            let dots = if m.side == Side::White { "." } else { "..." };
            (m.number.to_string(), format!("{}{dots}{}", m.number, m.san))
        }
        None => (
            (c.moves.white.max(c.moves.black)).to_string(),
            String::new(),
        ),
    };
    let state = match alert(c) {
        Some(a) => a.to_uppercase(),
        None => c.status.clone(),
    };
    format!(
        "{:>5} {:<24} {w} {b} {:<15} {:>4} {:<10} {:<7} {}",
        c.board,
        truncate(&players(c), 24),
        truncate(&phase, 15),
        number,
        truncate(&last, 10),
        c.result.as_deref().unwrap_or(""),
        state
    )
}

fn footer(clocks: &[ClockStatus], page: usize, pages: usize) -> String {
    let mut parts = Vec::new();
    if pages > 1 {
        parts.push(format!("page {}/{pages} (space: next)", page + 1));
    }
    parts.push("q: quit".into());
    let alerts: Vec<String> = clocks
        .iter()
        .filter_map(|c| alert(c).map(|a| format!("board {} {a}", c.board)))
        .collect();
    if !alerts.is_empty() {
        parts.push(format!("attention: {}", alerts.join(", ")));
    }
    parts.join("  ")
}

#[cfg(test)]
mod tests;
