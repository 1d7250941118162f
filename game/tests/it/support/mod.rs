//! A hand that moves pieces on a simulated board and feeds each change to a [`Tracker`], as a
//! real board's field updates would.
#![allow(dead_code, unreachable_pub)]

use chessclock_game::placement::{dgt_piece, field_of_square, raw_fields};
use chessclock_game::shakmaty::{Board, Piece, Square};
use chessclock_game::{GameEvent, RawFields, Tracker, TrackerConfig};
use chessclock_protocol::{Orientation, Piece as DgtPiece};

pub struct Hand {
    pub raw: RawFields,
    pub orientation: Orientation,
    pub now: u64,
    pub tracker: Tracker,
    pub events: Vec<GameEvent>,
    fresh: Vec<GameEvent>,
}

/// What python-chess says of `input`: `scripts/SCRIPT` run on it (written to a file named
/// `file`), one JSON value per output line. python3 and python-chess are installed by
/// `scripts/test.sh`.
pub fn python_chess(script: &str, file: &str, input: &str) -> Vec<serde_json::Value> {
    // One directory per call: the tests run in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("python-chess-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(file);
    std::fs::write(&path, input).expect("write");
    let script = format!("{}/../scripts/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(&path)
        .output()
        .expect("python3 (scripts/test.sh installs it)");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "python-chess failed (scripts/test.sh installs it with pip): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// A small deterministic generator (the games' moves, the orders and noise), from a seed.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next()).unwrap_or(0) % n.max(1)
    }
    /// True `percent` times in 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

pub fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|_| panic!("square {name}"))
}

impl Hand {
    /// A board in the start position, dumped to a fresh tracker.
    pub fn start(orientation: Orientation) -> Hand {
        let raw = raw_fields(&Board::default(), orientation);
        let mut h = Hand {
            raw,
            orientation,
            now: 1_000,
            tracker: Tracker::new(TrackerConfig::default()),
            events: Vec::new(),
            fresh: Vec::new(),
        };
        h.tracker.on_board_dump(h.now, &raw);
        h.drain();
        h
    }

    /// Events since the last call.
    pub fn drain(&mut self) -> Vec<GameEvent> {
        self.pull();
        std::mem::take(&mut self.fresh)
    }

    fn set(&mut self, square: Square, piece: Option<DgtPiece>) {
        self.now += 120;
        let f = field_of_square(square, self.orientation);
        self.raw[usize::from(f)] = piece;
        self.tracker.on_field_update(self.now, f, piece);
        self.pull();
    }

    /// Move new tracker events into `events` (and `fresh`, what `drain` returns next).
    fn pull(&mut self) {
        while let Some(e) = self.tracker.poll_event() {
            self.events.push(e.clone());
            self.fresh.push(e);
        }
    }

    pub fn lift(&mut self, name: &str) {
        self.set(sq(name), None);
    }

    pub fn place(&mut self, name: &str, piece: char) {
        let p = DgtPiece::from_char(piece).unwrap_or_else(|| panic!("piece {piece}"));
        self.set(sq(name), Some(p));
    }

    pub fn put(&mut self, square: Square, piece: Piece) {
        self.set(square, Some(dgt_piece(piece)));
    }

    pub fn clear(&mut self, square: Square) {
        self.set(square, None);
    }

    /// Lift from `from`, place the same piece on `to`.
    pub fn slide(&mut self, from: &str, to: &str) {
        let p = self.raw[usize::from(field_of_square(sq(from), self.orientation))]
            .unwrap_or_else(|| panic!("nothing on {from}"));
        self.lift(from);
        self.place(to, p.to_char());
    }

    /// The board sends a full dump showing `raw`.
    pub fn dump(&mut self, raw: RawFields) {
        self.raw = raw;
        self.tracker.on_board_dump(self.now, &raw);
        self.pull();
    }

    /// The board sends a full dump of the start position.
    pub fn dump_start(&mut self) {
        self.dump(raw_fields(&Board::default(), self.orientation));
    }

    /// Slide the pieces `from` → `to`, one pair after the other.
    pub fn play(&mut self, slides: &[(&str, &str)]) {
        for (from, to) in slides {
            self.slide(from, to);
        }
    }

    pub fn wait(&mut self, ms: u64) {
        self.now += ms;
        self.tracker.handle_timeout(self.now);
        self.pull();
    }

    /// UCI strings of the tracker's moves.
    pub fn ucis(&self) -> Vec<String> {
        self.tracker
            .moves()
            .iter()
            .map(|m| m.event.uci.clone())
            .collect()
    }

    pub fn sans(&self) -> Vec<String> {
        self.tracker
            .moves()
            .iter()
            .map(|m| m.event.san.clone())
            .collect()
    }
}
