//! Attaching and detaching a clock: the checks before (a port attached once, an emulated
//! clock's name and count), its options from the defaults, its table and its round's sheet,
//! the actor started on its line, then announced and remembered; detached, the actor stopped
//! (its journal kept, or its game archived), announced, and forgotten.
//!
//! Owns the order of those steps; the map and its publishing are the registry's. It must not
//! know how a clock is served (no bus types) nor do serial IO.

use std::path::PathBuf;

use tokio::sync::oneshot;

use super::Supervisor;
use crate::device::Request;
use crate::device::runtime::run_on;
use crate::device::{self, DeviceOptions, PortSpec, Sinks, SpawnError, Started, Transport};
use crate::supervisor::known::Identity;
use crate::supervisor::registry::Entry;
use crate::supervisor::same_port;
use crate::supervisor::table;
use crate::supervisor::{Change, ClockSpec, DetachHow, SupervisorError};

/// At most this many emulated clocks (each is a task and a board emulation in memory).
pub const MAX_VIRTUAL_CLOCKS: usize = 256;
/// Clock names are at most this many characters.
pub const MAX_NAME_CHARS: usize = 64;

impl Supervisor {
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

    pub(super) async fn add_virtual(&mut self, name: String) -> Result<u32, SupervisorError> {
        self.check_virtual(&name)?;
        let spec = ClockSpec {
            name: Some(name.clone()),
            remember: true,
            ..ClockSpec::default()
        };
        self.attach(PortSpec::Virtual, spec).await
    }

    pub(super) async fn attach(
        &mut self,
        port: PortSpec,
        spec: ClockSpec,
    ) -> Result<u32, SupervisorError> {
        self.attach_at(None, port, spec).await
    }

    /// Attach a clock on `port` as clock `at` (a game moved to another port keeps its
    /// number), or as the next number.
    pub(in crate::supervisor) async fn attach_at(
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

    pub(super) async fn detach(
        &mut self,
        index: u32,
        how: DetachHow,
    ) -> Result<(), SupervisorError> {
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
    pub(in crate::supervisor) async fn remove(&mut self, index: u32, stop: Request) {
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
