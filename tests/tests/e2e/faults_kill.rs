//! SIGKILL at pseudo-random points of scripted games (issue 10 item 9): the real
//! `chessclockd` with one board of every kind of attachment (a configured `[[clock]]`, a board
//! attached at run time with `chessclockctl attach`, each an emulated board on a pty whose
//! lever is pressed; a virtual clock, `chessclockctl add-virtual`, pressed with
//! `chessclockctl press`). Between presses, right after one, or while one is in flight, the daemon is
//! killed and started again; every game must then be where the rules say: each acknowledged
//! press is there, the running side is right, the waiting side's time is unchanged and the
//! running side was charged the time that passed (the restart gap), never given time.
//!
//! The seed is fixed (`FAULTS_SEED` overrides it) and printed on failure. Times are compared
//! with what the test saw through `chessclockctl status`, within [`TOLERANCE_MS`].

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use chessclock_protocol::emulator::Lcg;
use chessclock_tests::e2e::{ctl_ok, emu, presses};
use chessclock_tests::json::{s, u};
use chessclock_tests::rig::{Daemon, Emu, WAIT, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// SIGKILLs in one run (each hits every board).
const KILLS: usize = 30;
/// The largest difference allowed between the running side's loss and the time the test saw
/// pass (status is read through a process; the daemon restarts in between).
const TOLERANCE_MS: i64 = 600;
const CONTROL: &str = "G/10 inc/2";

/// How a board is attached to the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A `[[clock]]` in the configuration.
    Configured,
    /// `chessclockctl attach PATH` at run time (remembered in `attached.json`).
    Attached,
    /// `chessclockctl add-virtual NAME` (journaled under its name, remembered).
    Virtual,
}

/// Every kind of attachment the loop covers. A new kind is one line here (and its arm in
/// [`Board::attach`]).
const KINDS: &[Kind] = &[Kind::Configured, Kind::Attached, Kind::Virtual];

/// The virtual clock's name.
const VIRTUAL: &str = "faults-virtual";

/// What the test last saw of a board's game, and when.
#[derive(Debug, Clone)]
struct Seen {
    status: Value,
    at: Instant,
}

/// One board, its emulator and what was acknowledged.
struct Board {
    kind: Kind,
    /// The emulated board on a pty (`None` for a virtual clock, whose board is the daemon's).
    emu: Option<Emu>,
    /// The clock's index now (changes when the daemon restarts).
    id: String,
    /// The last status read after the last acknowledged press.
    seen: Option<Seen>,
}

impl Board {
    /// Attach a board of kind `kind` to a running daemon (configured boards are in the
    /// configuration already).
    fn attach(&self, daemon: &Daemon) {
        match (self.kind, &self.emu) {
            (Kind::Attached, Some(emu)) => {
                ctl_ok(daemon, &["attach", &emu.path]);
            }
            (Kind::Virtual, _) => {
                ctl_ok(daemon, &["add-virtual", VIRTUAL]);
            }
            _ => {}
        }
    }

    /// Whether `entry` of `chessclockctl list --json` is this board's clock.
    fn is(&self, entry: &Value) -> bool {
        match &self.emu {
            Some(emu) => s(entry, "/port") == emu.path,
            None => s(entry, "/name") == VIRTUAL,
        }
    }
}

/// The side the rules say runs after the presses counted in `v`: White starts.
fn side_to_run(v: &Value) -> &'static str {
    if u(v, "/moves/white") == u(v, "/moves/black") {
        "white"
    } else {
        "black"
    }
}

fn other(side: &str) -> &'static str {
    if side == "white" { "black" } else { "white" }
}

/// Find every board's clock index (by its port) and wait until each is ready.
fn find_ready(daemon: &Daemon, boards: &mut [Board]) -> Result<()> {
    let list = daemon.ctl_json(&["list", "--json"])?;
    for b in boards.iter_mut() {
        let entry = list
            .as_array()
            .and_then(|a| a.iter().find(|c| b.is(c)))
            .with_context(|| format!("{:?} board not listed: {list}", b.kind))?;
        b.id = u(entry, "/index").to_string();
        daemon.wait_status(&b.id, WAIT, "the board ready", |v| {
            s(v, "/device_state") == "ready"
        })?;
    }
    Ok(())
}

/// Press `b`'s lever (a virtual clock: `chessclockctl press` for the side to move) and wait
/// until the daemon counts it (acknowledged).
fn press(daemon: &Daemon, b: &mut Board) -> Result<()> {
    let before = b.seen.as_ref().map_or(0, |s| presses(&s.status));
    match (&mut b.emu, &b.seen) {
        (Some(emu), _) => emu.send("lever")?,
        (None, Some(seen)) => {
            ctl_ok(daemon, &["press", &b.id, side_to_run(&seen.status)]);
        }
        (None, None) => bail!("a virtual clock pressed before its game started"),
    }
    let status = daemon.wait_status(&b.id, WAIT, "the press counted", |v| {
        presses(v) == before + 1
    })?;
    b.seen = Some(Seen {
        status,
        at: Instant::now(),
    });
    Ok(())
}

/// After a restart: the game of `b` against what was acknowledged. Returns the running
/// side's time error (ms; positive: charged more than the time that passed).
fn check(daemon: &Daemon, b: &mut Board, in_flight: bool) -> Result<i64> {
    let seen = b
        .seen
        .clone()
        .context("a board with no acknowledged state")?;
    let after = daemon.ctl_json(&["status", &b.id, "--json"])?;
    let elapsed = i64::try_from(seen.at.elapsed().as_millis())?;
    let (then, now) = (presses(&seen.status), presses(&after));
    let what = format!("{:?} board, before {} after {}", b.kind, seen.status, after);
    ensure!(s(&after, "/status") == "running", "not running: {what}");
    ensure!(
        s(&after, "/running") == side_to_run(&after),
        "the running side does not follow the presses: {what}"
    );
    if now == then + 1 && in_flight {
        // The press in flight when the daemon died was journaled: a new baseline.
        b.seen = Some(Seen {
            status: after,
            at: Instant::now(),
        });
        return Ok(0);
    }
    ensure!(
        now == then,
        "acknowledged presses {then}, after restart {now}: {what}"
    );
    if in_flight && let Some(emu) = &mut b.emu {
        // Lost with the daemon before it was read: the lever now disagrees with the game.
        // The player presses again; the daemon counts nothing new (the lever is back where
        // the game says).
        emu.send("lever")?;
    }
    let running = s(&seen.status, "/running");
    let waiting = other(running);
    let ms = |v: &Value, side: &str| i64::try_from(u(v, &format!("/{side}_ms"))).unwrap_or(0);
    ensure!(
        ms(&after, waiting) == ms(&seen.status, waiting),
        "the waiting side's time changed: {what}"
    );
    let lost = ms(&seen.status, running) - ms(&after, running);
    ensure!(lost >= 0, "the running side gained time: {what}");
    let error = lost - elapsed;
    ensure!(
        error.abs() <= TOLERANCE_MS,
        "the running side lost {lost} ms in {elapsed} ms: {what}"
    );
    Ok(error)
}

fn run(seed: u64) -> Result<(usize, i64)> {
    let mut rng = Lcg::new(seed);
    let dir = TempDir::new("faults-kill")?;
    let bus = PrivateBus::start_session()?;
    let mut boards = Vec::new();
    for &kind in KINDS {
        boards.push(Board {
            kind,
            emu: if kind == Kind::Virtual {
                None
            } else {
                Some(emu(&[])?)
            },
            id: String::new(),
            seen: None,
        });
    }
    let configured: Vec<(&str, &str)> = boards
        .iter()
        .filter(|b| b.kind == Kind::Configured)
        .filter_map(|b| b.emu.as_ref().map(|e| (e.path.as_str(), CONTROL)))
        .collect();
    let extra = format!("default_time_control = {CONTROL:?}");
    let config = write_config(dir.path(), &configured, &extra)?;
    let log = dir.path().join("chessclockd.log");
    let mut daemon = Daemon::spawn_logged(bus.address(), &config, &log)?;
    for b in &boards {
        b.attach(&daemon);
    }
    find_ready(&daemon, &mut boards)?;
    for b in &mut boards {
        ctl_ok(&daemon, &["start", &b.id]);
        let status = daemon.wait_status(&b.id, WAIT, "white running", |v| {
            s(v, "/running") == "white"
        })?;
        b.seen = Some(Seen {
            status,
            at: Instant::now(),
        });
    }
    let mut worst = 0i64;
    let mut lost_in_flight = 0;
    let mut flights = 0;
    for kill in 0..KILLS {
        let step = || format!("kill {kill}");
        // A few presses on boards chosen at random, each acknowledged.
        for _ in 0..rng.below(4) {
            std::thread::sleep(Duration::from_millis(rng.below(400)));
            let i = usize::try_from(rng.below(boards.len() as u64))?;
            press(&daemon, &mut boards[i]).with_context(step)?;
        }
        // The kill point: right after the last press, a while later, or with a press in
        // flight (sent to the board, not yet seen by the test).
        let in_flight = match rng.below(3) {
            0 => None,
            1 => {
                std::thread::sleep(Duration::from_millis(rng.below(1_500)));
                None
            }
            _ => {
                // A lever press in flight: on a board with a lever (a virtual clock's presses
                // are requests, acknowledged or not made).
                let levers: Vec<usize> = (0..boards.len())
                    .filter(|&i| boards[i].emu.is_some())
                    .collect();
                let i = levers[usize::try_from(rng.below(levers.len() as u64))?];
                if let Some(emu) = &mut boards[i].emu {
                    emu.send("lever")?;
                }
                std::thread::sleep(Duration::from_millis(rng.below(6)));
                flights += 1;
                Some(i)
            }
        };
        daemon.kill();
        std::thread::sleep(Duration::from_millis(rng.below(1_000)));
        daemon = Daemon::spawn_logged(bus.address(), &config, &log).with_context(step)?;
        find_ready(&daemon, &mut boards).with_context(step)?;
        for (i, b) in boards.iter_mut().enumerate() {
            let flight = in_flight == Some(i);
            let before = b.seen.as_ref().map(|s| presses(&s.status));
            let error = check(&daemon, b, flight).with_context(step)?;
            if flight && b.seen.as_ref().map(|s| presses(&s.status)) == before {
                lost_in_flight += 1;
                // The lever was pressed back: make sure the daemon took it as no press.
                std::thread::sleep(Duration::from_millis(300));
                let now = daemon.ctl_json(&["status", &b.id, "--json"])?;
                ensure!(
                    before == Some(presses(&now)),
                    "{}: a press by the waiting side was counted: {now}",
                    step()
                );
            }
            worst = worst.max(error.abs());
        }
    }
    if log.exists() {
        let text = std::fs::read_to_string(&log)?;
        if text.contains("panicked") {
            bail!("the daemon panicked; its log is in {}", log.display());
        }
    }
    eprintln!(
        "faults_kill: {KILLS} SIGKILLs x {} boards, worst time error {worst} ms, \
         {lost_in_flight} of {flights} presses in flight lost with the daemon",
        boards.len()
    );
    Ok((lost_in_flight, worst))
}

#[test]
fn games_survive_sigkill_at_random_points_on_every_kind_of_attachment() -> Result<()> {
    let seed = std::env::var("FAULTS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_c10c);
    run(seed).with_context(|| format!("seed {seed} (repeat with FAULTS_SEED={seed})"))?;
    Ok(())
}
