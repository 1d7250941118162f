//! The `org.chessclockd.ChessClock1.Manager` interface at `/org/chessclockd/ChessClock1`.
//!
//! Holds a [`SupervisorHandle`] and the list of served clock paths only; attaching and
//! detaching, the round and applying its pairings happen in the supervisor, and `bus::objects` serves the clock objects. Owns
//! the mapping of object paths to clock numbers and of supervisor refusals to D-Bus errors.

use tokio::sync::watch;
use zbus::interface;
use zbus::object_server::SignalEmitter;
use zbus::{Connection, ObjectPath, ObjectServer, OwnedObjectPath};

use chessclock_api::round_check;

use super::clock::{ClockServed, Clocks};
use super::error::BusError;
use super::names::{clock_index, clock_path};
use crate::supervisor::{DetachHow, SupervisorError, SupervisorHandle};

/// How long `AddVirtual` waits for the emulated board to answer its probe before it answers
/// anyway (the clock then shows `probing` for a moment).
const VIRTUAL_PROBE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The manager object.
#[derive(Debug)]
pub struct ManagerIface {
    sup: SupervisorHandle,
    paths: watch::Receiver<Vec<OwnedObjectPath>>,
}

impl ManagerIface {
    /// Serve the supervisor on the bus; `paths` are the clock objects being served.
    pub fn new(sup: SupervisorHandle, paths: watch::Receiver<Vec<OwnedObjectPath>>) -> Self {
        ManagerIface { sup, paths }
    }
}

/// The error for a clock path that names no attached clock.
fn no_such(clock: &ObjectPath<'_>) -> BusError {
    BusError::NoSuchClock(format!(
        "no clock at {}; `chessclockctl list` shows the attached clocks",
        clock.as_str()
    ))
}

impl ManagerIface {
    async fn load(
        &self,
        content: &str,
        format: &str,
        round: u32,
        force: bool,
        emitter: &SignalEmitter<'_>,
    ) -> Result<Vec<String>, BusError> {
        let before = self.sup.round();
        let report = self
            .sup
            .load_pairings(content, format, round, force)
            .await?;
        if self.sup.round() != before {
            let _ = self.round_changed(emitter).await;
        }
        let _ = self.paper_games_changed(emitter).await;
        Ok(report)
    }

    async fn detach_how(&self, clock: ObjectPath<'_>, how: DetachHow) -> Result<(), BusError> {
        let index = clock_index(clock.as_str()).ok_or_else(|| no_such(&clock))?;
        match self.sup.detach(index, how).await {
            Err(SupervisorError::NoSuchClock(_)) => Err(no_such(&clock)),
            other => Ok(other?),
        }
    }
}

/// The object path of clock `index`.
fn path_of(index: u32) -> Result<OwnedObjectPath, BusError> {
    Ok(ObjectPath::try_from(clock_path(index))?.into())
}

impl From<SupervisorError> for BusError {
    fn from(e: SupervisorError) -> BusError {
        let msg = e.to_string();
        match e {
            SupervisorError::InvalidArgument(_) => BusError::InvalidArgument(msg),
            SupervisorError::NotAllowed(_) => BusError::NotAllowed(msg),
            SupervisorError::NoSuchClock(_) => BusError::NoSuchClock(msg),
            SupervisorError::AlreadyAttached(_) => BusError::AlreadyAttached(msg),
            SupervisorError::PortFailed(_) => BusError::PortFailed(msg),
            SupervisorError::Gone => BusError::Gone(msg),
        }
    }
}

#[interface(name = "org.chessclockd.ChessClock1.Manager")]
impl ManagerIface {
    /// Daemon version.
    #[zbus(property(emits_changed_signal = "const"))]
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_owned()
    }

    /// The current round: 1 until a round's pairings are loaded (`LoadPairings`), kept in the
    /// state directory across restarts.
    #[zbus(property)]
    fn round(&self) -> u32 {
        self.sup.round()
    }

    /// Load a round's pairings: `content` is the file's text (CSV with a header
    /// `board,white,black,...`, tags-only PGN, or FIDE TRF-16), `format` is `csv`, `pgn`,
    /// `trf` or `auto` (empty: detected), `round` the round they are for (0: the current
    /// round; TRF holds every round). Each paired board's clock (by its `Board`) gets the
    /// players, FIDE ids, ratings, titles, teams and `Round "R.B"` as game information, and
    /// the round becomes current; the next round's, once a game of the current round has
    /// started, are kept for `NextRound` instead. A board without a clock is a paper board
    /// (`SetBoardResult`, `PaperGames`). A malformed line or a board two clocks share is
    /// `InvalidArgument` naming every such line, and nothing is changed. Returns one line per
    /// board, and one per clock the pairings leave out.
    async fn load_pairings(
        &self,
        content: &str,
        format: &str,
        round: u32,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<Vec<String>, BusError> {
        self.load(content, format, round, false, &emitter).await
    }

    /// `LoadPairings`, and `force`: loading the same file again changes nothing; a file that
    /// gives a begun game (or a paper board's entered result) other players is `NotAllowed`,
    /// naming each such board and its players before and after, and nothing is changed,
    /// unless `force` (then the file's players are set; a result entered stays where the
    /// players are the same).
    async fn load_pairings_with(
        &self,
        content: &str,
        format: &str,
        round: u32,
        force: bool,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<Vec<String>, BusError> {
        self.load(content, format, round, force, &emitter).await
    }

    /// Set the result of board `board` of the current round: `1-0`, `0-1` or `1/2-1/2` (`*`
    /// clears a paper board's). A paper board's result is kept across restarts and its game
    /// rewritten (the live folder, `PaperGames`); an e-board's is its clock's `SetResult` (the
    /// arbiter's result). A board the round does not have, or a result that is not one, is
    /// `InvalidArgument`, and nothing is changed. Returns what was done.
    async fn set_board_result(
        &self,
        board: u32,
        result: &str,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<String, BusError> {
        let done = self.sup.set_board_result(board, result).await?;
        let _ = self.paper_games_changed(&emitter).await;
        Ok(done)
    }

    /// Every board of the current round, in board order: (board, White, Black, result (`*`
    /// none yet, `+-`/`-+` a paper board's forfeit), clock number (-1: a paper board), clock
    /// name).
    async fn get_round_boards(&self) -> Vec<(u32, String, String, String, i32, String)> {
        self.sup
            .round_boards()
            .await
            .into_iter()
            .map(|b| {
                let (index, name) = match b.clock {
                    Some((i, name)) => (i32::try_from(i).unwrap_or(i32::MAX), name),
                    None => (-1, String::new()),
                };
                let result = b
                    .result
                    .map_or("*", |r| {
                        chessclock_game::pairings::result_word(r, b.forfeit)
                    })
                    .to_owned();
                (b.board, b.white, b.black, result, index, name)
            })
            .collect()
    }

    /// The current round's results for the pairing program: `format` `csv` (`board,white,
    /// black,result`, `*` for a game without a result) or `trf` (the TRF-16 file the
    /// pairings came from, with the round's results and the points filled in). Without
    /// pairings for the round, or `trf` for pairings that did not come from TRF, it is
    /// `NotAllowed`.
    async fn export_round(&self, format: &str) -> Result<String, BusError> {
        Ok(self.sup.export_round(format).await?)
    }

    /// The current round's paper boards' games by board number: PGN with the players,
    /// `Round "R.B"`, `Board`, `Result` and no moves; empty without paper boards.
    #[zbus(property)]
    async fn paper_games(&self) -> std::collections::BTreeMap<u32, String> {
        self.sup.paper_games().await
    }

    /// Roll the round over: every clock starts a new game on its control as its board in the
    /// next round (its live file `round-R+1/game-B.pgn`; round R's files stay), the players
    /// of the last round's pairings are cleared and those kept for R+1 set, and `Round`
    /// becomes R+1. While a game is running, paused or flagged without a result this is
    /// `NotAllowed` naming the boards and nothing is changed, unless `force` (those games
    /// are discarded as by `NewGame`).
    /// Returns one line per clock.
    async fn next_round(
        &self,
        force: bool,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<Vec<String>, BusError> {
        let report = self.sup.next_round(force).await?;
        let _ = self.round_changed(&emitter).await;
        let _ = self.paper_games_changed(&emitter).await;
        Ok(report)
    }

    /// Roll the round over as `NextRound` and keep `lichess_round` as the new round's Lichess
    /// round id (`BroadcastRounds`: the bridge pushes the round there unless its own
    /// `[[lichess]] rounds` names one). An id that is not 8 letters and digits is
    /// `InvalidArgument` naming it, and nothing is changed.
    async fn next_round_broadcast(
        &self,
        force: bool,
        lichess_round: &str,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<Vec<String>, BusError> {
        let report = self.sup.next_round_broadcast(force, lichess_round).await?;
        let _ = self.round_changed(&emitter).await;
        let _ = self.paper_games_changed(&emitter).await;
        let _ = self.broadcast_rounds_changed(&emitter).await;
        Ok(report)
    }

    /// The Lichess round id given for each round with `NextRoundBroadcast`, kept in the state
    /// directory across restarts.
    #[zbus(property)]
    fn broadcast_rounds(&self) -> std::collections::BTreeMap<u32, String> {
        self.sup.broadcast_rounds()
    }

    /// Object paths of the attached clocks, by index.
    #[zbus(property)]
    fn clocks(&self) -> Vec<OwnedObjectPath> {
        self.paths.borrow().clone()
    }

    /// Every attached clock's `org.chessclockd.ChessClock1.Clock` properties in one answer,
    /// by object path, as `GetAll` gives them but without `Snapshot` (`LiveSnapshot`, computed
    /// now, has its keys as of the read): what `GetManagedObjects` says of the clocks, at a
    /// fraction of its cost (the dictionaries are built once per state change, not per read).
    async fn get_clocks(
        &self,
        #[zbus(object_server)] server: &ObjectServer,
        #[zbus(connection)] conn: &Connection,
    ) -> zbus::fdo::Result<Clocks> {
        let paths = self.paths.borrow().clone();
        let mut out = Clocks::default();
        for path in paths {
            // A clock detached meanwhile is left out, as it would be a moment later.
            let Ok(iface) = server.interface::<_, ClockServed>(&path).await else {
                continue;
            };
            let entry = iface
                .get()
                .await
                .0
                .bulk_entry(server, conn, iface.signal_emitter())
                .await?;
            out.0.push((path, entry));
        }
        Ok(out)
    }

    /// The round's go/no-go, as `chessclockctl round check` gives it: every board of the
    /// current round in board order, paper boards included: (board, clock number (-1: a paper
    /// board), ready, its checks: (check, ok, text, fix)). The checks are `answering`,
    /// `clock`, `pieces`, `orientation`, `control`, `battery`, `players` (a paper board:
    /// `paper`, `players`); the Lichess push's `lichess` check is the bridge's, which
    /// `round check` adds. `control`: the round's time control (notation); empty, the one
    /// most of the round's clocks are set to. A control that does not parse is
    /// `InvalidArgument`. Open to everyone, like the property reads: it changes nothing.
    async fn check_round(
        &self,
        control: &str,
        #[zbus(object_server)] server: &ObjectServer,
        #[zbus(connection)] conn: &Connection,
    ) -> Result<Vec<round_check::BusReadiness>, BusError> {
        let control = match control.trim() {
            "" => None,
            typed => Some(
                chessclock_engine::notation::parse(typed)
                    .map_err(|e| {
                        BusError::InvalidArgument(format!(
                            "{}: {}; e.g. \"G/90 inc/30\"",
                            chessclock_engine::words::quote(typed),
                            e.message
                        ))
                    })?
                    .canonical,
            ),
        };
        let boards: Vec<round_check::RoundBoard> = self
            .sup
            .round_boards()
            .await
            .into_iter()
            .map(|b| round_check::RoundBoard {
                board: b.board,
                white: b.white,
                black: b.black,
                clock: b.clock.map(|(i, _)| i),
            })
            .collect();
        let Clocks(entries) = self
            .get_clocks(server, conn)
            .await
            .map_err(|e| BusError::DeviceFailed(e.to_string()))?;
        let mut clocks = Vec::with_capacity(entries.len());
        for (path, entry) in &entries {
            clocks.push(
                entry
                    .status(path.as_str())
                    .map_err(|e| BusError::DeviceFailed(e.to_string()))?,
            );
        }
        Ok(
            round_check::check(&boards, &clocks, control.as_deref(), None)
                .into_iter()
                .map(round_check::BoardReadiness::to_bus)
                .collect(),
        )
    }

    /// Attach the DGT board at tty `port` (e.g. /dev/ttyACM0); returns the clock's path.
    async fn attach(&self, port: &str) -> Result<OwnedObjectPath, BusError> {
        path_of(self.sup.attach(port).await?)
    }

    /// Detach a clock; the object disappears. Its game stays in the state directory and its
    /// board keeps its number: the board attached again gets both back (`DetachWith` ends
    /// the game instead).
    async fn detach(&self, clock: ObjectPath<'_>) -> Result<(), BusError> {
        self.detach_how(clock, DetachHow::Keep).await
    }

    /// Detach a clock; `what` says what becomes of its game: "keep" (as `Detach`),
    /// "archive" (written to games/, a game under way as it stood, and its journal removed;
    /// the board keeps its number) or "forget" (archived, and the board's number is free for
    /// another board).
    async fn detach_with(&self, clock: ObjectPath<'_>, what: &str) -> Result<(), BusError> {
        let how = match what.trim().to_ascii_lowercase().as_str() {
            "keep" => DetachHow::Keep,
            "archive" => DetachHow::Archive,
            "forget" => DetachHow::Forget,
            _ => {
                return Err(BusError::InvalidArgument(format!(
                    "{}: a detach keeps the game (keep), archives it (archive), or archives                      it and frees the board's number (forget)",
                    chessclock_engine::words::quote(what)
                )));
            }
        };
        self.detach_how(clock, how).await
    }

    /// Move a clock's game to other hardware mid-game (a failed board or clock swapped for
    /// a spare): `with` is a port (attached first if it is not) or the serial number of an
    /// attached board. The game goes on there with its moves, times, control, players, board
    /// number and mode, as the same clock object; its journal moves with it, so a restart in
    /// between keeps one game; the old hardware is detached. The new board must answer within
    /// 10 s and must not have a game of its own under way (`NotAllowed`); its pieces are
    /// checked against the game like any resumed game's. Returns what was done.
    async fn replace(&self, clock: ObjectPath<'_>, with: &str) -> Result<String, BusError> {
        let index = clock_index(clock.as_str()).ok_or_else(|| no_such(&clock))?;
        match self.sup.replace(index, with).await {
            Err(SupervisorError::NoSuchClock(_)) => Err(no_such(&clock)),
            other => Ok(other?),
        }
    }

    /// Make a clock's board board number `board`, kept for that board (its serial number,
    /// else its port; a virtual clock's name) across restarts; refused while another clock
    /// is that board or a [[clock]] table gives the number. Returns what was done.
    async fn set_board(&self, clock: ObjectPath<'_>, board: u32) -> Result<String, BusError> {
        let index = clock_index(clock.as_str()).ok_or_else(|| no_such(&clock))?;
        match self.sup.set_board(index, board).await {
            Err(SupervisorError::NoSuchClock(_)) => Err(no_such(&clock)),
            other => Ok(other?),
        }
    }

    /// Add a clock backed by the built-in emulator (a DGT board with a DGT 3000, in memory;
    /// its port is "virtual:NAME"), for demos and training; returns the clock's path. With a
    /// state directory its game is journaled under its name, and it is added again after a
    /// restart.
    async fn add_virtual(&self, name: &str) -> Result<OwnedObjectPath, BusError> {
        let index = self.sup.add_virtual(name).await?;
        // Its emulated board answers the probe within milliseconds: answered once it has,
        // the clock is ready for what the caller does next (`list`, `doctor`, `start`).
        // A tty's `Attach` is answered at once: a real board's probe may take seconds.
        if let Some(clock) = self
            .sup
            .handles()
            .await
            .into_iter()
            .find(|h| h.borrow_state().clock.index == index)
        {
            clock.answered(VIRTUAL_PROBE_WAIT).await;
        }
        path_of(index)
    }

    /// Emitted when a clock is attached (also visible through ObjectManager).
    #[zbus(signal)]
    pub async fn clock_added(
        emitter: &SignalEmitter<'_>,
        clock: ObjectPath<'_>,
    ) -> zbus::Result<()>;

    /// Emitted when a clock is detached.
    #[zbus(signal)]
    pub async fn clock_removed(
        emitter: &SignalEmitter<'_>,
        clock: ObjectPath<'_>,
    ) -> zbus::Result<()>;
}
