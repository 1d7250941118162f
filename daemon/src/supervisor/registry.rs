//! The supervisor task: the attached clocks by number, attach / add-virtual / detach, the
//! remembered set, the current round (published), and the [`Change`]s it announces. A clock
//! attached with a paper board's number takes that board's pairing (the round's sheet,
//! `round_boards.rs`); its board number is its board's (`numbering.rs`).
//!
//! Owns the map of clocks and the order of what happens to one (actor started, then
//! announced, then remembered; detached: actor stopped (its journal kept, or its game
//! archived and its journal removed), then announced, then forgotten). It must not know how a
//! clock is served (no bus types) nor do serial IO.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::known::{Identity, Known};
use super::numbering::Moved;
use super::same_port;
use super::table::{self, Match};
use super::{Change, ClockSpec, Defaults, DetachHow, Msg, Published, Seen, SupervisorError};
use crate::device::runtime::run_on;
use crate::device::{self, DeviceOptions, PortSpec, Sinks, SpawnError, Started, Transport};
use crate::device::{DeviceHandle, Request};
use crate::remembered::{self, Remembered};

/// How long a stopping daemon waits for the live PGN files to be written (the writer rests
/// a quarter of a second between writes).
const LIVE_FLUSH_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// At most this many emulated clocks (each is a task and a board emulation in memory).
pub const MAX_VIRTUAL_CLOCKS: usize = 256;
/// Clock names are at most this many characters.
pub const MAX_NAME_CHARS: usize = 64;

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

    /// Whether another emulated clock named `name` may be added.
    fn check_virtual(&self, name: &str) -> Result<(), SupervisorError> {
        let shown: String = name.chars().take(40).collect();
        if name.trim().is_empty() {
            return Err(SupervisorError::InvalidArgument(
                "a virtual clock needs a name, e.g. `chessclockctl add-virtual board1`".into(),
            ));
        }
        if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(SupervisorError::InvalidArgument(format!(
                "{shown:?}...: a clock name is at most {MAX_NAME_CHARS} characters, without \
                 control characters"
            )));
        }
        if let Some((i, _)) = self
            .clocks
            .iter()
            .find(|(_, e)| e.virtual_name.as_deref() == Some(name))
        {
            return Err(SupervisorError::AlreadyAttached(format!(
                "a virtual clock named {name:?} is attached already as clock {i} (its game is \
                 journaled under its name); choose another name or detach it first"
            )));
        }
        let virtuals = self
            .clocks
            .values()
            .filter(|e| e.virtual_name.is_some())
            .count();
        if virtuals >= MAX_VIRTUAL_CLOCKS {
            return Err(SupervisorError::NotAllowed(format!(
                "{MAX_VIRTUAL_CLOCKS} virtual clocks are attached already, the most there may \
                 be; detach some first"
            )));
        }
        Ok(())
    }

    async fn add_virtual(&mut self, name: String) -> Result<u32, SupervisorError> {
        self.check_virtual(&name)?;
        let spec = ClockSpec {
            name: Some(name.clone()),
            remember: true,
            ..ClockSpec::default()
        };
        self.attach(PortSpec::Virtual, spec).await
    }

    async fn attach(&mut self, port: PortSpec, spec: ClockSpec) -> Result<u32, SupervisorError> {
        self.attach_at(None, port, spec).await
    }

    /// Attach a clock on `port` as clock `at` (a game moved to another port keeps its
    /// number), or as the next number.
    pub(super) async fn attach_at(
        &mut self,
        at: Option<u32>,
        port: PortSpec,
        spec: ClockSpec,
    ) -> Result<u32, SupervisorError> {
        if let PortSpec::Tty(path) = &port
            && let Some((i, _)) = self.clocks.iter().find(|(_, e)| same_port(&e.port, path))
        {
            return Err(SupervisorError::AlreadyAttached(format!(
                "{} is already attached as clock {i}; detach it first",
                path.display()
            )));
        }
        let index = at.unwrap_or(self.next);
        let kept_spec = spec.clone();
        let identity = match &port {
            PortSpec::Tty(p) => Identity::Tty {
                port: device::stable_port(p),
                serial: None,
            },
            PortSpec::Virtual => Identity::Virtual(spec.name.clone().unwrap_or_default()),
        };
        let known_name = self.known.get(&identity).and_then(|b| b.name.clone());
        let given_name = match &port {
            // A virtual clock's journal is its name's; the name it was given since is shown.
            PortSpec::Virtual => known_name.or(spec.name.clone()),
            PortSpec::Tty(_) => spec.name.clone().or(known_name),
        };
        let mut options = self.defaults.device.clone();
        options.white_side = spec.white_side;
        if let Some(tc) = spec.time_control {
            options.time_control = tc;
        }
        options.game_info = spec.game_info;
        options.move_source = spec.move_source;
        options.mode = spec.mode;
        options.draw_rules = spec.draw_rules.or(options.draw_rules);
        options.wait_for_port = spec.wait_for_port;
        let name = given_name.unwrap_or_else(|| match &port {
            PortSpec::Tty(p) => default_name(p),
            PortSpec::Virtual => format!("virtual{index}"),
        });
        let virtual_name = match &identity {
            Identity::Virtual(n) => Some(n.clone()),
            Identity::Tty { .. } => None,
        };
        let (configured, table) = (spec.configured, spec.board_serial.clone());
        let board = match spec.board {
            Some(n) => n,
            None => self.known_number(&identity),
        };
        let round = *self.published.round.borrow();
        options.place = Some((round, board));
        // A paper board's number: the board becomes an e-board with the pairing's players.
        if options.game_info.is_empty()
            && let Some(tags) = self.sheet.paper_tags(round, board)
        {
            tracing::info!(
                clock = index,
                "board {board} of round {round} is no longer a paper board"
            );
            options.game_info = tags;
        }
        let line = match (&port, &virtual_name) {
            (PortSpec::Virtual, Some(v)) => Line::Virtual(v.clone()),
            (PortSpec::Tty(p), _) => Line::Tty(p.clone()),
            (PortSpec::Virtual, None) => Line::Virtual(name.clone()),
        };
        let spawn = spawn(index, name, line, options, self.sinks.clone());
        let started = run_on(self.defaults.devices.as_ref(), spawn)
            .await
            .map_err(SupervisorError::PortFailed)?
            .map_err(|e| SupervisorError::PortFailed(e.to_string()))?;
        let handle = started.handle;
        if at.is_none() {
            self.next += 1;
        }
        // A board on a tty is known by the serial number it reports (and a board attached
        // at run time may be one a table names by it); every board keeps the name its clock
        // is given.
        let serial_watch = Some(tokio::spawn(table::watch_serial(
            index,
            handle.watch_state(),
            self.serials.clone(),
        )));
        self.clocks.insert(
            index,
            Entry {
                handle: handle.clone(),
                port: started.port,
                virtual_name: virtual_name.clone(),
                actor: started.task,
                configured,
                table,
                serial_watch,
                board,
                identity,
                spec: kept_spec,
                journal: started.journal,
            },
        );
        let (done, served) = oneshot::channel();
        if self
            .changes
            .send(Change::Attached {
                index,
                handle,
                done,
            })
            .await
            .is_ok()
        {
            let _ = served.await;
        }
        self.publish();
        if spec.remember {
            let added = match (&port, virtual_name) {
                (PortSpec::Tty(p), _) => self.remembered.ports.insert(p.clone()),
                (PortSpec::Virtual, Some(n)) => self.remembered.virtual_clocks.insert(n),
                (PortSpec::Virtual, None) => false,
            };
            if added {
                self.save_remembered();
            }
        }
        tracing::info!(clock = index, "attached clock {index}");
        Ok(index)
    }

    async fn detach(&mut self, index: u32, how: DetachHow) -> Result<(), SupervisorError> {
        let Some(entry) = self.clocks.get(&index) else {
            return Err(SupervisorError::NoSuchClock(format!(
                "no clock {index}; `chessclockctl list` shows the attached clocks"
            )));
        };
        let (port, virtual_name) = (entry.port.clone(), entry.virtual_name.clone());
        let identity = entry.identity.clone();
        match how {
            // Its journal stays: the board attached again gets its game back.
            DetachHow::Keep => self.remove(index, Request::Shutdown).await,
            // Its game goes to games/ and its journal and snapshot go.
            DetachHow::Archive | DetachHow::Forget => self.remove(index, Request::Detach).await,
        }
        if how == DetachHow::Forget {
            self.known.forget(&identity);
        }
        // Detached on purpose: not attached again after a restart.
        let forgotten = match virtual_name {
            Some(n) => self.remembered.virtual_clocks.remove(&n),
            None => self.remembered.ports.remove(&port),
        };
        if forgotten {
            self.save_remembered();
        }
        Ok(())
    }

    /// Stop clock `index`'s actor with `stop` ([`Request::Shutdown`]: its journal stays;
    /// [`Request::Detach`]: its game is archived and its journal removed), then announce it.
    pub(super) async fn remove(&mut self, index: u32, stop: Request) {
        // The name it has now stays with its board (its watch may not have said it yet).
        if let Some(entry) = self.clocks.get(&index) {
            let name = entry.handle.borrow_state().name.clone();
            self.name_seen(index, &name);
        }
        let Some(entry) = self.clocks.remove(&index) else {
            return;
        };
        if let Some(watch) = &entry.serial_watch {
            watch.abort();
        }
        if let Err(e) = entry.handle.request(stop).await {
            tracing::debug!(clock = index, "actor stop: {e}");
        }
        let _ = entry.actor.await;
        let (done, unserved) = oneshot::channel();
        if self
            .changes
            .send(Change::Detached { index, done })
            .await
            .is_ok()
        {
            let _ = unserved.await;
        }
        self.publish();
        tracing::info!(clock = index, "detached clock {index}");
    }

    pub(super) fn publish(&self) {
        let boards = self.clocks.iter().map(|(i, e)| (*i, e.board)).collect();
        self.published.boards.send_replace(boards);
        self.published
            .numbers
            .send_replace(self.clocks.keys().copied().collect());
    }
}

/// The line a clock is started on: a tty, or a virtual board by the name its journal has
/// (the clock's own name may have changed since).
enum Line {
    Tty(PathBuf),
    Virtual(String),
}

/// Start clock `index`, named `name`, on `line`: the supervisor chooses it, the tty (opened,
/// or waited for) or a virtual board in memory, which the device opens once its options are
/// known good. Runs on the actors' runtime (a virtual board's task lives there).
async fn spawn(
    index: u32,
    name: String,
    line: Line,
    options: DeviceOptions,
    sinks: Sinks,
) -> Result<Started, SpawnError> {
    match line {
        Line::Tty(path) => {
            let open = move |o: &DeviceOptions| Transport::tty(index, &path, o);
            device::spawn(index, name, options, sinks, open).await
        }
        #[cfg(any(test, feature = "virtual-board"))]
        Line::Virtual(vname) => {
            let open = move |o: &DeviceOptions| Ok(crate::virtual_board::transport(&vname, o));
            device::spawn(index, name, options, sinks, open).await
        }
        #[cfg(not(any(test, feature = "virtual-board")))]
        Line::Virtual(_) => {
            let open = |_: &DeviceOptions| -> Result<Transport<tokio::io::DuplexStream>, _> {
                Err(SpawnError::Port(std::io::Error::new(
                    std::io::ErrorKind::Unsupported,
                    "virtual clocks need the emulated board, and this chessclockd was built \
                     without it; build it with the cargo feature virtual-board (on by default)",
                )))
            };
            device::spawn(index, name, options, sinks, open).await
        }
    }
}

/// The name of a clock that a table does not name: its tty's file name (`ttyACM0`), with its
/// folder's in front when that name begins with a digit (`/dev/pts/1` is `pts1`), so that a
/// default name never reads as another clock's index or board number.
pub(crate) fn default_name(port: &std::path::Path) -> String {
    let Some(file) = port.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return port.display().to_string();
    };
    if !file.starts_with(|c: char| c.is_ascii_digit()) {
        return file;
    }
    let folder = port
        .parent()
        .and_then(|p| p.file_name())
        .map_or_else(|| "tty".to_owned(), |n| n.to_string_lossy().into_owned());
    format!("{folder}{file}")
}

#[cfg(test)]
mod default_name_tests {
    use super::default_name;
    use std::path::Path;

    #[test]
    fn a_default_name_never_reads_as_a_number() {
        assert_eq!(default_name(Path::new("/dev/ttyACM0")), "ttyACM0");
        assert_eq!(default_name(Path::new("/dev/pts/1")), "pts1");
        assert_eq!(default_name(Path::new("7")), "tty7");
    }
}
