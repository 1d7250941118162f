//! Whole games through the session in virtual time: presses timed where their bytes arrive
//! and journaled, flags announced with the times back after, a press ending text at once,
//! the run button, an unplugged clock re-synced, observe mode timing moves by the clock.

use chessclock_protocol::emulator::{EmuConfig, Running};
use chessclock_protocol::{Button, ClockCommand, Command, RunFlags, RunSide};

use super::{Rig, notices, shows_wanted, until};
use crate::link::driver::Instant;
use crate::link::state::DeviceState;
use crate::session::SessionOutput;
use crate::session::announce::SHOW_FOR;
use crate::session::interface::{ClockEvent, Request};
use crate::session::observe::Mode;
use chessclock_engine::{Input, Side, Status};

#[test]
fn a_press_is_timed_where_its_bytes_arrive_and_journaled_before_anything_else() {
    let mut rig = Rig::ready("G/5 inc/3", EmuConfig::default());
    rig.start();
    let started = rig.now;
    rig.run_until(started + 1_337);
    rig.press();
    let pressed: Vec<_> = rig
        .clock_events()
        .into_iter()
        .filter_map(|(_, ev)| match ev {
            ClockEvent::Pressed(chessclock_engine::Press { side, move_ms, .. }) => {
                Some((side, move_ms))
            }
            _ => None,
        })
        .collect();
    assert_eq!(pressed, [(Side::White, 1_337)]);
    assert_eq!(
        rig.journaled(),
        [
            Input::Start { side: Side::White },
            Input::Press { side: Side::White }
        ]
    );
    // Black's time runs on the clock at once.
    assert_eq!(rig.view().running, Running::Right);
}

#[test]
fn a_flag_is_announced_with_a_beep_and_the_times_come_back() {
    let mut rig = Rig::ready("G/1 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 60_000);
    let flagged = until(&mut rig, 200, "W FLAG on the clock", |r| {
        r.emu.view().text.as_deref() == Some("W FLAG")
    });
    assert!(
        rig.clock_events().iter().any(|(_, ev)| matches!(
            ev,
            ClockEvent::Flag {
                side: Side::White,
                ..
            }
        )),
        "a flag event"
    );
    let beeps = rig
        .emu
        .host_log()
        .iter()
        .filter(|e| {
            matches!(
                e.command,
                chessclock_protocol::Command::Clock(chessclock_protocol::ClockCommand::Beep { .. })
            )
        })
        .count();
    assert_eq!(beeps, 1, "one beep with the flag");
    let back = until(
        &mut rig,
        3_000,
        "the times back after the text",
        shows_wanted,
    );
    let shown = back - flagged;
    // The text's time runs from when it was queued, behind the push of the flag's times.
    let show_for = u64::try_from(SHOW_FOR.as_millis()).expect("small");
    let round_trip = 2 * EmuConfig::default().ack_delay_ms + 10;
    assert!(
        (show_for - round_trip..=show_for + round_trip).contains(&shown),
        "the text stayed {shown} ms"
    );
    assert_eq!(rig.view().left_seconds, 0, "White's flagged half shows 0");
}

#[test]
fn a_press_ends_an_operators_text_within_one_round_trip() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 500);
    rig.request(Request::ShowText {
        text: "HELLO".into(),
        ms: 8_000,
    })
    .expect("text");
    rig.run_until(rig.now + 1_000);
    assert_eq!(rig.view().text.as_deref(), Some("HELLO"));
    rig.press();
    let pressed = rig.now;
    let back = until(&mut rig, 200, "times after the press", shows_wanted);
    assert!(back - pressed <= 2 * EmuConfig::default().ack_delay_ms + 10);
    assert_eq!(rig.view().running, Running::Right);
}

#[test]
fn the_run_button_pauses_and_resumes_the_game() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 2_000);
    rig.emu.press_button(rig.now, Button::Run);
    until(&mut rig, 200, "paused", |r| {
        r.session.status() == Status::Paused
    });
    until(&mut rig, 200, "the clock stands", |r| {
        r.emu.view().running == Running::None
    });
    let paused_at = rig.wanted();
    rig.run_until(rig.now + 5_000);
    assert_eq!(rig.wanted(), paused_at, "no time runs while paused");
    rig.emu.press_button(rig.now, Button::Run);
    until(&mut rig, 200, "running again", |r| {
        r.session.status() == Status::Running && r.emu.view().running == Running::Left
    });
    let inputs = rig.journaled();
    assert_eq!(inputs[1..], [Input::Pause, Input::Resume]);
}

#[test]
fn an_unplugged_clock_is_resynced_once_it_answers_again() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 3_000);
    rig.unplug();
    assert_eq!(rig.session.device_state(), DeviceState::Disconnected);
    // The clock counts on its own meanwhile; the game goes on in the engine.
    rig.run_until(rig.now + 7_500);
    rig.replug();
    let back = rig.now;
    until(&mut rig, 4_000, "ready again", |r| {
        r.session.device_state() == DeviceState::Ready
    });
    let shown = until(&mut rig, 200, "the engine's times", shows_wanted);
    assert!(shown - back < 4_000);
    assert_eq!(
        rig.emu.view().running,
        Running::Left,
        "White's time still runs"
    );
    assert_eq!(notes(&rig), ["disconnected: end of file", "reconnected"]);
    assert!(notices(&rig).is_empty(), "{:?}", notices(&rig));
}

/// White presses while the cable is out: the host hears nothing, and the clock does not
/// switch sides by itself. At the first report after the replug the lever shows Black to
/// move: White's press is taken then, and the operator is told.
#[test]
fn a_press_made_while_unplugged_is_taken_when_the_board_is_back() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 2_000);
    rig.press();
    rig.run_until(rig.now + 3_000);
    rig.press(); // Black: the lever has been in step with the engine.
    rig.run_until(rig.now + 1_000);
    rig.unplug();
    rig.run_until(rig.now + 4_000);
    rig.press(); // White, unheard
    rig.run_until(rig.now + 2_000);
    rig.replug();
    let back = rig.now;
    until(&mut rig, 4_000, "Black's time runs", |r| {
        r.emu.view().running == Running::Right
    });
    // The clock was asked for a report (0x41) before the first set-and-run: every push
    // after the replug shows Black's time running, none White's.
    let pushes = pushes_since(&mut rig, back);
    assert!(!pushes.is_empty(), "pushed after the replug");
    assert!(
        pushes.iter().all(|(_, run)| *run == RunSide::Right),
        "the display showed the wrong side running: {pushes:?}"
    );
    assert!(pushes[0].0 < back + 1_000, "{pushes:?}: within a second");
    let presses = pressed(&rig);
    assert_eq!(presses.len(), 3, "{presses:?}");
    let (t, side, move_ms) = presses[2];
    assert_eq!(side, Side::White);
    assert!(t >= back, "taken when the board is back");
    assert_eq!(
        move_ms,
        t - back + 7_000,
        "charged up to the moment it was known"
    );
    let said = notices(&rig);
    assert!(
        said.len() == 1 && said[0].contains("white's press"),
        "{said:?}"
    );
}

/// Operators press over the bus, White, Black, White, on a board whose lever never moved,
/// and the cable is pulled at once, before the clock reports the change: the lever is out of
/// step with Black's time running, and after the replug its disagreement is no press.
#[test]
fn presses_over_the_bus_then_an_unplug_invent_no_press() {
    let mut rig = Rig::ready("G/10", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 2_000);
    rig.bus_presses_unheard(&[Side::White, Side::Black, Side::White]);
    rig.unplug();
    rig.run_until(rig.now + 1_000);
    rig.replug();
    rig.run_until(rig.now + 3_000);
    assert_eq!(pressed(&rig).len(), 3, "only the operators' presses");
    let snap = rig.session.snapshot(rig.at());
    assert_eq!((snap.moves.white, snap.moves.black), (2, 1), "{snap:?}");
    assert_eq!(rig.session.engine().to_move(), Some(Side::Black));
    assert_eq!(rig.emu.view().running, Running::Right, "Black's time runs");
    assert!(notices(&rig).is_empty(), "{:?}", notices(&rig));
}

/// Across a restart of the daemon whether the lever was in step is not known: a new
/// session resumes the running game, the lever moved while nobody listened, and the operator
/// is told (no press is invented); their press over the bus takes it.
#[test]
fn a_press_made_while_the_daemon_was_down_is_a_notice_at_the_restart() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 2_000);
    rig.press();
    rig.run_until(rig.now + 1_000);
    // The daemon dies here; Black presses on the clock, then the daemon comes back with the
    // journaled game (the engine as it was, its time line going on).
    let engine = rig.session.engine().clone();
    rig.press();
    rig.run_until(rig.now + 1_500);
    let offset = rig.session.time_at(Instant::from_ms(rig.now)).as_ms();
    rig.emu.reset_board(rig.now);
    let mut session = crate::session::Session::new(
        super::config(),
        crate::link::driver::DriverConfig::default(),
        engine,
        offset - rig.now,
        None,
    );
    session.connect_first(Instant::from_ms(rig.now));
    rig.session = session;
    rig.events.clear();
    until(&mut rig, 4_000, "the notice", |r| !notices(r).is_empty());
    let said = notices(&rig);
    assert!(
        said.len() == 1 && said[0].contains("`chessclockctl press 7 black`"),
        "{said:?}"
    );
    assert!(pressed(&rig).is_empty(), "no press invented");
    rig.input(Input::Press { side: Side::Black });
    until(&mut rig, 200, "White's time runs", |r| {
        r.emu.view().running == Running::Left
    });
}

/// A board turned round (White's side changed) while the game runs, then a replug: the
/// lever's halves mean other players now, so its disagreement is no press.
#[test]
fn a_lever_after_the_sides_changed_is_not_taken_as_a_press() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 1_000);
    rig.press();
    rig.run_until(rig.now + 1_000);
    rig.request(Request::SetWhiteSide(
        crate::link::display::BoardSide::Right,
    ))
    .expect("sides changed");
    rig.unplug();
    rig.run_until(rig.now + 1_000);
    rig.replug();
    rig.run_until(rig.now + 3_000);
    assert_eq!(pressed(&rig).len(), 1, "only White's press");
    assert_eq!(rig.session.engine().to_move(), Some(Side::Black));
}

/// A lever out of step before the loss (an operator pressed for White over the bus, the
/// lever still shows White to move): no press is invented after the replug.
#[test]
fn a_lever_out_of_step_before_the_loss_is_not_taken_as_a_press() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 1_000);
    rig.input(Input::Press { side: Side::White });
    rig.run_until(rig.now + 1_000);
    rig.unplug();
    rig.run_until(rig.now + 1_000);
    rig.replug();
    rig.run_until(rig.now + 3_000);
    assert_eq!(pressed(&rig).len(), 1, "only the operator's press");
    assert_eq!(rig.session.engine().to_move(), Some(Side::Black));
    assert!(notices(&rig).is_empty());
}

/// The set-and-runs the board received from `since` on: when, and which half ran.
fn pushes_since(rig: &mut Rig, since: u64) -> Vec<(u64, RunSide)> {
    rig.emu
        .host_log()
        .iter()
        .filter(|e| e.at_ms >= since)
        .filter_map(|e| match &e.command {
            Command::Clock(ClockCommand::SetAndRun(s)) => {
                let run = [RunSide::Left, RunSide::Right, RunSide::Paused]
                    .into_iter()
                    .find(|r| RunFlags::from(*r) == s.flags)?;
                Some((e.at_ms, run))
            }
            _ => None,
        })
        .collect()
}

fn pressed(rig: &Rig) -> Vec<(u64, Side, u64)> {
    rig.clock_events()
        .into_iter()
        .filter_map(|(t, ev)| match ev {
            ClockEvent::Pressed(chessclock_engine::Press { side, move_ms, .. }) => {
                Some((t, side, move_ms))
            }
            _ => None,
        })
        .collect()
}

fn notes(rig: &Rig) -> Vec<String> {
    rig.events
        .iter()
        .filter_map(|(_, ev)| match ev {
            SessionOutput::Note {
                note, record: true, ..
            } => Some(note.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn observe_mode_times_each_move_by_the_clock_and_sends_it_nothing() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.request(Request::SetMode(Mode::Observe))
        .expect("observe a clock that is not running");
    rig.run_until(rig.now + 100);
    let sent_before = rig.emu.host_log().len();
    rig.emu.start_own_game(rig.now, 300);
    rig.run_until(rig.now + 4_200);
    rig.press();
    rig.run_until(rig.now + 2_000);
    let pressed: Vec<_> = rig
        .clock_events()
        .into_iter()
        .filter_map(|(_, ev)| match ev {
            ClockEvent::Pressed(chessclock_engine::Press {
                move_number,
                move_ms,
                ..
            }) => Some((move_number, move_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(pressed.len(), 1, "{pressed:?}");
    assert_eq!(pressed[0].0, 1);
    assert!(
        (4_100..=4_300).contains(&pressed[0].1),
        "the move took 4.2 s by the clock: {pressed:?}"
    );
    assert_eq!(rig.session.status(), Status::Running);
    let display_commands = rig.emu.host_log()[sent_before..]
        .iter()
        .filter(|e| matches!(e.command, chessclock_protocol::Command::Clock(_)))
        .count();
    assert_eq!(display_commands, 0, "observe mode sends the clock nothing");
    assert!(
        rig.journaled().is_empty(),
        "nothing for the engine to journal"
    );
}

/// A press read by `handle_input` is finished there: its event and the push of the new
/// times come out before any `handle_timeout` (the caller need not know which call applies
/// what).
#[test]
fn a_press_is_finished_by_handle_input_alone() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 1_000);
    rig.emu.press_lever(rig.now);
    // The board's report of the press, not fed to the session yet.
    let mut out = rig.emu.poll_output(rig.now);
    while out.is_empty() {
        let t = rig.emu.poll_timeout().expect("the report is due");
        rig.now = t;
        rig.emu.handle_timeout(t);
        out = rig.emu.poll_output(t);
    }
    let at = Instant::from_ms(rig.now);
    rig.session.handle_input(at, &out);
    let mut pressed = false;
    while let Some(ev) = rig.session.poll_output() {
        pressed |= matches!(
            ev,
            SessionOutput::Clock {
                event: ClockEvent::Pressed(chessclock_engine::Press { .. }),
                ..
            }
        );
    }
    assert!(pressed, "the press's event");
    assert!(
        rig.session.poll_transmit(at).is_some(),
        "the new times to push"
    );
}

#[test]
fn an_observed_clock_s_control_is_declared_for_the_record_and_the_drive_one_comes_back() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.request(Request::SetMode(Mode::Observe))
        .expect("observe a clock that is not running");
    assert!(
        rig.session.pgn(rig.at()).contains("[TimeControl \"?\"]"),
        "undeclared: unknown"
    );
    let sent_before = rig.emu.host_log().len();
    rig.request(Request::SetTimeControl(super::control("G/90 inc/30")))
        .expect("declared");
    rig.run_until(rig.now + 500);
    let pgn = rig.session.pgn(rig.at());
    assert!(pgn.contains("[TimeControl \"5400+30\"]"), "{pgn}");
    assert!(rig.published().time_control.starts_with("G/90"));
    assert!(
        rig.emu.host_log()[sent_before..]
            .iter()
            .all(|e| !matches!(e.command, chessclock_protocol::Command::Clock(_))),
        "the clock is not set"
    );
    rig.request(Request::SetMode(Mode::Drive)).expect("drive");
    assert_eq!(rig.published().time_control, "G/5 d/0");
}

/// A clock whose pieces were never read (no e-board, or an empty one) publishes no position
/// (an empty FEN), not the start position, and its presses do not make one up; once the
/// pieces are read, their position is published.
#[test]
fn no_position_is_published_until_the_pieces_are_read() {
    use chessclock_game::START_FEN;
    use chessclock_protocol::board::Square;
    use chessclock_protocol::emulator::PieceAction;

    let mut rig = Rig::new("G/5", EmuConfig::default());
    for field in 0u8..64 {
        let sq = Square::from_field(field).expect("a field");
        if rig.emu.pieces().get(sq).is_some() {
            let _ = rig.emu.piece_action(0, PieceAction::Lift(sq));
        }
    }
    assert_eq!(rig.published().clock.fen, "", "before the board answered");
    rig.run_until(1_000);
    assert_eq!(rig.session.device_state(), DeviceState::Ready);
    assert_eq!(rig.published().clock.fen, "", "an empty board");
    rig.start();
    rig.run_until(rig.now + 2_000);
    rig.press();
    rig.run_until(rig.now + 500);
    let st = rig.published();
    assert_eq!(st.clock.fen, "", "a press makes up no position");
    assert!(st.clock.moves_san.is_empty(), "{:?}", st.clock.moves_san);

    let mut read = Rig::ready("G/5", EmuConfig::default());
    assert_eq!(read.published().clock.fen, START_FEN, "the pieces read");
}

/// The board's orientation is published once its start position is read: a board turned
/// round is `rotated` (read as such), and nothing is said before a position is read.
#[test]
fn the_board_s_orientation_is_published_from_its_start_position() {
    use chessclock_protocol::Orientation;
    use chessclock_protocol::emulator::BoardConfig;

    let normal = Rig::ready("G/5", EmuConfig::default());
    let turned = EmuConfig {
        board: BoardConfig {
            orientation: Orientation::Rotated,
            ..BoardConfig::default()
        },
        ..EmuConfig::default()
    };
    let mut rotated = Rig::new("G/5", turned);
    assert_eq!(
        rotated.published().clock.board_orientation,
        None,
        "before the board answered"
    );
    rotated.run_until(1_000);
    let mut normal = normal;
    assert_eq!(
        normal.published().clock.board_orientation,
        Some(Orientation::Normal)
    );
    assert_eq!(
        rotated.published().clock.board_orientation,
        Some(Orientation::Rotated)
    );
    assert_eq!(
        rotated.published().clock.fen,
        chessclock_game::START_FEN,
        "the turned board reads as the start position"
    );
}

/// Ten presses 3.1 s apart, the session woken `late_ms` after each of its deadlines (a
/// loaded host): the set-and-runs the board received from the start on.
fn pushes_of_ten_presses(control: &str, late_ms: u64) -> Vec<(u64, RunSide)> {
    let mut rig = Rig::ready(control, EmuConfig::default());
    rig.start();
    let since = rig.now;
    let mut next_press = rig.now + 3_100;
    let mut presses = 0;
    while presses < 10 {
        let session = rig.session.poll_timeout().map(|at| at.as_ms() + late_ms);
        let wake = [session, rig.emu.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        rig.now = wake.unwrap_or(next_press).min(next_press).max(rig.now);
        rig.step();
        if rig.now == next_press {
            rig.press();
            presses += 1;
            next_press += 3_100;
        }
    }
    pushes_since(&mut rig, since)
}

/// At most two set-and-runs a press (spec §7: one at the press, one at the engine's next
/// whole second), however late the host wakes: a re-sync that comes a little late is taken
/// as on the second and arms no other (it did, a second later, until the next press).
#[test]
fn a_press_costs_at_most_two_set_and_runs_even_when_the_host_wakes_late() {
    for control in ["G/10 inc/5", "G/5 d/3", "G/5"] {
        for late_ms in [0, 3, 20] {
            let pushes = pushes_of_ten_presses(control, late_ms);
            // The start's push, then at most two for each of the ten presses.
            assert!(
                pushes.len() <= 1 + 2 * 10,
                "{control}, woken {late_ms} ms late: {} set-and-runs: {pushes:?}",
                pushes.len()
            );
        }
    }
}
