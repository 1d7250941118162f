//! The boards the daemon has known: each board's number and the name it was given, by the
//! board's identity, kept in the state directory (`boards.json`, through
//! `store::state_file`), so that a restart, another udev order, a replug on another port or
//! a detach and re-attach give a board back its number, never the attach order's.
//!
//! A board's identity is the serial number its board reports, else its port (the stable
//! `by-path` name where there is one), and a virtual clock's, its name. Owns the file and the
//! numbering rule: a board without a configured number gets the lowest number that no known
//! board, configured table or attached clock holds, once, and keeps it until it is given
//! another or forgotten. Pure data and rules; the registry applies them to its clocks. It
//! must not spawn clocks nor know the bus.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file, in the state directory.
pub(super) const FILE: &str = "boards.json";

/// One board the daemon has known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct KnownBoard {
    /// Its board number.
    pub(super) board: u32,
    /// The serial number its board reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) serial: Option<String>,
    /// The port it was last on (its stable name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) port: Option<PathBuf>,
    /// A virtual clock's name.
    #[serde(default, rename = "virtual", skip_serializing_if = "Option::is_none")]
    pub(super) virtual_name: Option<String>,
    /// The name the operator gave its clock, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<String>,
}

/// How a clock is known: the key of its [`KnownBoard`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Identity {
    /// A virtual clock, by its name.
    Virtual(String),
    /// A tty, by its stable port name, and by its board's serial number once reported.
    Tty {
        /// The stable port name.
        port: PathBuf,
        /// The serial number the board reported.
        serial: Option<String>,
    },
}

impl Identity {
    fn matches(&self, b: &KnownBoard) -> bool {
        match self {
            Identity::Virtual(name) => b.virtual_name.as_deref() == Some(name.as_str()),
            Identity::Tty {
                serial: Some(s), ..
            } => b.serial.as_deref() == Some(s.as_str()),
            Identity::Tty { port, serial: None } => {
                b.virtual_name.is_none() && b.port.as_deref() == Some(port.as_path())
            }
        }
    }
}

/// What a board's serial number said of a clock on a port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Recognised {
    /// The board number the board has.
    pub(super) board: u32,
    /// The name the board was given, if it was.
    pub(super) name: Option<String>,
    /// The port the board was known on before, if another.
    pub(super) was_on: Option<PathBuf>,
}

/// The known boards, and where they are kept (`None`: in memory only).
#[derive(Debug, Clone, Default)]
pub(super) struct Known {
    dir: Option<PathBuf>,
    boards: Vec<KnownBoard>,
}

impl Known {
    /// The boards kept in `dir` (none without one; a damaged file is set aside and said, as
    /// every state file).
    pub(super) fn load(dir: Option<&Path>) -> Known {
        let boards = dir
            .and_then(|d| {
                crate::store::state_file::load_json::<Vec<KnownBoard>>(
                    &d.join(FILE),
                    "the boards' numbers are given anew, the lowest free first: set each \
                     board's number again (`chessclockctl renumber CLOCK N`), or give it in its \
                     [[clock]] table (`board = N`)",
                )
            })
            .unwrap_or_default();
        Known {
            dir: dir.map(Path::to_path_buf),
            boards,
        }
    }

    fn save(&self) {
        let Some(dir) = &self.dir else {
            return;
        };
        let mut boards = self.boards.clone();
        boards.sort_by_key(|b| b.board);
        if let Err(e) = crate::store::state_file::save_json(&dir.join(FILE), &boards) {
            tracing::warn!(
                "cannot write {}: {e}; the boards' numbers may be given anew after a restart",
                dir.join(FILE).display()
            );
        }
    }

    /// The board known as `id`, if it is.
    pub(super) fn get(&self, id: &Identity) -> Option<&KnownBoard> {
        self.boards.iter().find(|b| id.matches(b))
    }

    fn get_mut(&mut self, id: &Identity) -> Option<&mut KnownBoard> {
        self.boards.iter_mut().find(|b| id.matches(b))
    }

    /// The lowest board number no known board and nothing in `reserved` holds.
    pub(super) fn lowest_free(&self, reserved: &BTreeSet<u32>) -> u32 {
        let held: BTreeSet<u32> = self.boards.iter().map(|b| b.board).collect();
        (1..=u32::MAX)
            .find(|n| !held.contains(n) && !reserved.contains(n))
            .unwrap_or(u32::MAX)
    }

    /// The number of the board known as `id`; a board not known yet gets the lowest free
    /// one, kept from now on. A known number in `reserved` (another clock's now, or a
    /// configured table's) is given up for a free one, and said.
    pub(super) fn number(&mut self, id: &Identity, reserved: &BTreeSet<u32>) -> u32 {
        let free = self.lowest_free(reserved);
        match self.get_mut(id) {
            Some(b) if b.board != 0 && !reserved.contains(&b.board) => return b.board,
            Some(b) if b.board == 0 => b.board = free,
            Some(b) => {
                tracing::warn!(
                    "board {} ({}) is another clock's or a [[clock]] table's number now; it is \
                     board {free} from now on",
                    b.board,
                    describe(b)
                );
                b.board = free;
            }
            None => self.boards.push(new_board(id, free)),
        }
        self.save();
        free
    }

    /// The board on `port` (which had board number `current`) reported `serial`. A board
    /// known by that serial number keeps its number and name (its port is now `port`); a
    /// board known only by the port is the one that serial names from now on; another board
    /// known on the port is no longer (it moved, or was replaced); a board not known yet keeps
    /// `current` where no other known board holds it, else the lowest free not in `reserved`.
    pub(super) fn serial_seen(
        &mut self,
        port: &Path,
        serial: &str,
        current: u32,
        reserved: &BTreeSet<u32>,
    ) -> Recognised {
        let by_serial = self
            .boards
            .iter()
            .position(|b| b.serial.as_deref() == Some(serial));
        let by_port = self
            .boards
            .iter()
            .position(|b| b.virtual_name.is_none() && b.port.as_deref() == Some(port));
        let seen = match (by_serial, by_port) {
            (Some(s), Some(p)) if s == p && self.boards[s].board != 0 => {
                let b = &self.boards[s];
                return Recognised {
                    board: b.board,
                    name: b.name.clone(),
                    was_on: None,
                };
            }
            (Some(mut s), p) => {
                let was_on = self.boards[s]
                    .port
                    .replace(port.to_path_buf())
                    .filter(|was| was != port);
                if let Some(p) = p {
                    if self.boards[p].serial.is_none() {
                        // Known by the port only: it was this board all along.
                        let tentative = self.boards.remove(p);
                        if p < s {
                            s -= 1;
                        }
                        if self.boards[s].name.is_none() {
                            self.boards[s].name = tentative.name;
                        }
                    } else {
                        self.boards[p].port = None;
                    }
                }
                if self.boards[s].board == 0 || reserved.contains(&self.boards[s].board) {
                    self.boards[s].board = self.lowest_free(reserved);
                }
                Recognised {
                    board: self.boards[s].board,
                    name: self.boards[s].name.clone(),
                    was_on,
                }
            }
            (None, Some(p)) if self.boards[p].serial.is_none() => {
                self.boards[p].serial = Some(serial.to_owned());
                if self.boards[p].board == 0 {
                    self.boards[p].board = self.lowest_free(reserved);
                }
                Recognised {
                    board: self.boards[p].board,
                    name: self.boards[p].name.clone(),
                    was_on: None,
                }
            }
            (None, p) => {
                // Another board was known on this port: it is no longer there.
                if let Some(p) = p {
                    self.boards[p].port = None;
                }
                let held = self.boards.iter().any(|b| b.board == current);
                let board = if current > 0 && !held && !reserved.contains(&current) {
                    current
                } else {
                    self.lowest_free(reserved)
                };
                self.boards.push(KnownBoard {
                    board,
                    serial: Some(serial.to_owned()),
                    port: Some(port.to_path_buf()),
                    virtual_name: None,
                    name: None,
                });
                Recognised {
                    board,
                    name: None,
                    was_on: None,
                }
            }
        };
        self.save();
        seen
    }

    /// The board known as `id` is board `board` from now on. A board that held that number
    /// before gives it up, and gets the lowest free one when it comes back (the caller has
    /// checked that no attached clock holds it).
    pub(super) fn set_number(&mut self, id: &Identity, board: u32) {
        for b in &mut self.boards {
            if b.board == board && !id.matches(b) {
                // Numbered anew when it comes back.
                b.board = 0;
            }
        }
        match self.get_mut(id) {
            Some(b) => b.board = board,
            None => self.boards.push(new_board(id, board)),
        }
        self.save();
    }

    /// The clock of the board known as `id` was named `name`.
    pub(super) fn set_name(&mut self, id: &Identity, name: &str) {
        let Some(b) = self.get_mut(id) else {
            return;
        };
        if b.name.as_deref() == Some(name) {
            return;
        }
        b.name = Some(name.to_owned());
        self.save();
    }

    /// Forget the board known as `id`: its number is free again.
    pub(super) fn forget(&mut self, id: &Identity) {
        let before = self.boards.len();
        self.boards.retain(|b| !id.matches(b));
        if self.boards.len() != before {
            self.save();
        }
    }
}

/// A new known board numbered `board`.
fn new_board(id: &Identity, board: u32) -> KnownBoard {
    let (serial, port, virtual_name) = match id {
        Identity::Virtual(name) => (None, None, Some(name.clone())),
        Identity::Tty { port, serial } => (serial.clone(), Some(port.clone()), None),
    };
    KnownBoard {
        board,
        serial,
        port,
        virtual_name,
        name: None,
    }
}

/// How a known board is named in the log.
fn describe(b: &KnownBoard) -> String {
    match (&b.virtual_name, &b.serial, &b.port) {
        (Some(name), _, _) => format!("virtual clock {name:?}"),
        (None, Some(serial), _) => format!("board serial {serial}"),
        (None, None, Some(port)) => format!("port {}", port.display()),
        (None, None, None) => "a board".to_owned(),
    }
}

#[cfg(test)]
mod tests;
