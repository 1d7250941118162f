//! The supervisor task: the attached clocks by number, its loop over the messages, the
//! remembered set, the current round (published), the defaults and tables applied to the
//! clocks, and the [`Change`]s it announces. Attaching and detaching a clock, in order, is
//! `registry/attach.rs`'s. A clock attached with a paper board's number takes that board's
//! pairing (the round's sheet, `round_boards.rs`); its board number is its board's
//! (`numbering.rs`).
//!
//! Owns the map of clocks. It must not know how a clock is served (no bus types) nor do
//! serial IO.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::known::{Identity, Known};
use super::numbering::Moved;
use super::table::{self, Match};
use super::{Change, ClockSpec, Defaults, Msg, Published, Seen};
use crate::device::{self, PortSpec, Sinks};
use crate::device::{DeviceHandle, Request};
use crate::remembered::{self, Remembered};

/// How long a stopping daemon waits for the live PGN files to be written (the writer rests
/// a quarter of a second between writes).
const LIVE_FLUSH_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

mod attach;

pub(crate) use attach::default_name;
pub use attach::{MAX_NAME_CHARS, MAX_VIRTUAL_CLOCKS};

pub(super) struct Entry {
    pub(super) handle: DeviceHandle,
    pub(super) port: PathBuf,
    /// An emulated board (AddVirtual): its name.
    pub(super) virtual_name: Option<String>,
    actor: JoinHandle<()>,
    /// Attached from a `[[clock]]` table by its port.
    pub(super) configured: bool,
    /// The `board_serial` of the table this clock has (configured with it, or matched).
    pub(super) table: Option<String>,
    /// Tells the supervisor the serial numbers its board reports and the names it is given.
    serial_watch: Option<JoinHandle<()>>,
    /// Its board number.
    pub(super) board: u32,
    /// How its board is known (`known.rs`).
    pub(super) identity: Identity,
    /// What it was attached with (a game that moves to another port keeps it).
    pub(super) spec: ClockSpec,
    /// Its journal's store name (`None`: no state directory).
    pub(super) journal: Option<String>,
}

pub(super) struct Supervisor {
    pub(super) defaults: Defaults,
    pub(super) clocks: BTreeMap<u32, Entry>,
    next: u32,
    changes: mpsc::Sender<Change>,
    pub(super) published: Published,
    /// Ports attached at run time and virtual clocks (the remembered file's contents).
    pub(super) remembered: Remembered,
    /// The boards known by their identity, with their numbers.
    pub(super) known: Known,
    /// Where the clocks' serial watches report.
    serials: mpsc::UnboundedSender<Seen>,
    /// The journal and live-file writers of every clock (one thread each, shared).
    pub(super) sinks: Sinks,
    /// The current round's sheet: a clock attached with a paper board's number takes its
    /// pairing.
    sheet: super::round_boards::Sheet,
}

/// The supervisor's loop: one message at a time until `Shutdown` or every handle is gone.
pub(super) async fn run(
    defaults: Defaults,
    mut rx: mpsc::Receiver<Msg>,
    changes: mpsc::Sender<Change>,
    published: Published,
    sheet: super::round_boards::Sheet,
) {
    let remembered = defaults
        .device
        .state_dir
        .as_deref()
        .map(remembered::load)
        .unwrap_or_default();
    let (serials, mut seen) = mpsc::unbounded_channel();
    let known = Known::load(defaults.device.state_dir.as_deref());
    let mut sup = Supervisor {
        defaults,
        clocks: BTreeMap::new(),
        next: 0,
        changes,
        published,
        remembered,
        known,
        serials,
        sinks: Sinks::default(),
        sheet,
    };
    loop {
        let msg = tokio::select! {
            msg = rx.recv() => match msg {
                Some(msg) => msg,
                None => break,
            },
            Some(seen) = seen.recv() => {
                match seen {
                    Seen::Serial { index, serial } => sup.serial_seen(index, &serial).await,
                    Seen::Name { index, name } => sup.name_seen(index, &name),
                }
                continue;
            }
        };
        match msg {
            Msg::Attach { spec, reply } => {
                let port = PortSpec::Tty(spec.port.clone());
                let _ = reply.send(sup.attach(port, *spec).await);
            }
            Msg::AddVirtual { name, reply } => {
                let _ = reply.send(sup.add_virtual(name).await);
            }
            Msg::Detach { index, how, reply } => {
                let _ = reply.send(sup.detach(index, how).await);
            }
            Msg::SetBoard {
                index,
                board,
                reply,
            } => {
                let _ = reply.send(sup.set_board(index, board));
            }
            Msg::MoveGame { from, to, reply } => {
                let moved = sup.move_game(from, to, Moved::Replaced).await;
                let _ = reply.send(moved);
            }
            Msg::SetDefaults { defaults, reply } => {
                sup.set_defaults(*defaults);
                let _ = reply.send(());
            }
            Msg::SetRound { round, reply } => {
                sup.set_round(round);
                let _ = reply.send(());
            }
            Msg::TagDefaults { reply } => {
                let _ = reply.send(sup.defaults.device.tag_defaults.clone());
            }
            Msg::WriteLive {
                round,
                board,
                text,
                reply,
            } => {
                sup.write_live(round, board, text);
                let _ = reply.send(());
            }
            Msg::Remembered { reply } => {
                let _ = reply.send(sup.remembered_in_board_order());
            }
            Msg::Handles { reply } => {
                let _ = reply.send(sup.clocks.values().map(|e| e.handle.clone()).collect());
            }
            Msg::Shutdown { reply } => {
                let indices: Vec<u32> = sup.clocks.keys().copied().collect();
                for i in indices {
                    // The daemon stops: every journal stays, and the games come back.
                    sup.remove(i, Request::Shutdown).await;
                }
                // The live writer may be resting with the last changes in hand.
                if tokio::time::timeout(LIVE_FLUSH_WAIT, sup.sinks.live.flush())
                    .await
                    .is_err()
                {
                    tracing::warn!(
                        "the live PGN files were not all written within {LIVE_FLUSH_WAIT:?}"
                    );
                }
                let _ = reply.send(());
                break;
            }
        }
    }
}

impl Supervisor {
    /// Board `board`'s game of round `round` to the live folder, as a clock's goes there.
    fn write_live(&self, round: u32, board: u32, text: String) {
        let Some(live) = self.defaults.device.live_folder() else {
            return;
        };
        self.sinks.live.update(
            live.join(device::round_dir(round)),
            device::game_file(board),
            text,
        );
    }

    fn set_round(&mut self, round: u32) {
        self.published.round.send_replace(round);
        if let Some(dir) = &self.defaults.device.state_dir
            && let Err(e) = super::round::save(dir, round)
        {
            tracing::warn!(
                "cannot write {}: {e}; the round may be {} again after a restart",
                dir.join(super::round::FILE).display(),
                super::round::load(dir).unwrap_or(1)
            );
        }
    }

    /// The remembered boards, in the order of their known board numbers.
    fn remembered_in_board_order(&self) -> Vec<super::Remembered> {
        let number = |id: &Identity| self.known.get(id).map_or(u32::MAX, |b| b.board);
        let mut all: Vec<(u32, super::Remembered)> = self
            .remembered
            .ports
            .iter()
            .map(|p| {
                let id = Identity::Tty {
                    port: device::stable_port(p),
                    serial: None,
                };
                (number(&id), super::Remembered::Port(p.clone()))
            })
            .chain(self.remembered.virtual_clocks.iter().map(|n| {
                let id = Identity::Virtual(n.clone());
                (number(&id), super::Remembered::Virtual(n.clone()))
            }))
            .collect();
        all.sort_by_key(|(n, _)| *n);
        all.into_iter().map(|(_, r)| r).collect()
    }

    pub(super) fn save_remembered(&self) {
        if let Some(dir) = &self.defaults.device.state_dir
            && let Err(e) = remembered::save(dir, &self.remembered)
        {
            tracing::warn!(
                "cannot write {}: {e}; boards attached at run time may not come back after a restart",
                dir.join(remembered::FILE).display()
            );
        }
    }

    fn set_defaults(&mut self, defaults: Defaults) {
        let settings = defaults.device.reload_settings();
        self.defaults = defaults;
        // Running clocks take the new operational settings; their games and time controls
        // stay as they are.
        for entry in self.clocks.values() {
            let handle = entry.handle.clone();
            tokio::spawn(async move {
                let _ = handle.request(Request::Settings(settings)).await;
            });
        }
        // A table added by the reload may name a board attached already.
        let known: Vec<(u32, String)> = self
            .clocks
            .iter()
            .filter(|(_, e)| e.serial_watch.is_some())
            .map(|(i, e)| (*i, e.handle.borrow_state().board_serial.clone()))
            .filter(|(_, serial)| !serial.is_empty())
            .collect();
        for (index, serial) in known {
            self.table_seen(index, &serial);
        }
    }

    /// Clock `index`'s board reported `serial`: it gets the table that names it, unless the
    /// clock has a table already, or the table's clock is another one.
    pub(super) fn table_seen(&mut self, index: u32, serial: &str) {
        let Some(entry) = self.clocks.get(&index) else {
            return;
        };
        if entry.configured || entry.virtual_name.is_some() || entry.table.is_some() {
            return;
        }
        let taken = |s: &str| {
            self.clocks
                .iter()
                .find(|(i, e)| **i != index && e.table.as_deref() == Some(s))
                .map(|(i, _)| *i)
        };
        match table::choose(&self.defaults.tables, serial, taken) {
            Match::None => {}
            Match::Taken { table: t, by } => {
                let text = format!(
                    "board {serial} is [[clock]] {}, but that table's clock is clock {by}, \
                     attached already; clock {index} keeps the default settings (detach one of \
                     them, `chessclockctl detach`)",
                    table::describe(&self.defaults.tables[t])
                );
                tracing::warn!(clock = index, "{text}");
                let handle = entry.handle.clone();
                tokio::spawn(async move {
                    let _ = handle.request(Request::Notice(text)).await;
                });
            }
            Match::Apply(t) => {
                let board = self.defaults.tables[t].clone();
                let handle = entry.handle.clone();
                if let Some(entry) = self.clocks.get_mut(&index) {
                    entry.table = Some(board.board_serial.clone());
                    if let Some(number) = board.spec.board {
                        entry.board = number;
                        let round = *self.published.round.borrow();
                        let handle = handle.clone();
                        tokio::spawn(async move {
                            let place = Request::Place {
                                round,
                                board: number,
                            };
                            let _ = handle.request(place).await;
                        });
                    }
                }
                self.publish();
                tokio::spawn(table::apply(index, handle, board));
            }
        }
    }

    pub(super) fn publish(&self) {
        let boards = self.clocks.iter().map(|(i, e)| (*i, e.board)).collect();
        self.published.boards.send_replace(boards);
        self.published
            .numbers
            .send_replace(self.clocks.keys().copied().collect());
    }
}
