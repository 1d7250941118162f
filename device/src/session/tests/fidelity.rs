//! The display in phase with the engine (issue 11 item 1), for every timing method: long
//! random games, the emulated clock sampled against the engine every 10 ms. Outside one
//! command round trip after a change, the clock shows `ceil(engine ms / 1000)` on both halves.

use chessclock_protocol::emulator::{EmuConfig, Lcg};

use super::Rig;
use chessclock_engine::Status;

/// One command round trip: a command in flight is acknowledged after `ack_delay_ms`; the
/// next goes out then and takes effect on arrival.
fn round_trip_ms() -> u64 {
    2 * EmuConfig::default().ack_delay_ms + 10
}

/// What a sampled game showed.
#[derive(Debug, Default)]
struct Fidelity {
    /// Samples compared (times on the display).
    samples: u64,
    /// Samples where a half showed another second than the engine.
    off: u64,
    /// The longest run of consecutive off samples, in ms.
    max_episode_ms: u64,
    /// Where it began.
    max_episode_at: u64,
    /// Samples with text on the display (announcements), not compared.
    text: u64,
    /// Presses made.
    presses: u32,
}

/// Play `control` with presses every 0.2-6 s (seeded), sampling every 10 ms, until the game
/// ends (and 3 s more) or `max_presses` presses.
fn play(control: &str, seed: u64, max_presses: u32) -> Fidelity {
    let mut rig = Rig::ready(control, EmuConfig::default());
    rig.start();
    let mut rng = Lcg::new(seed);
    let mut f = Fidelity::default();
    let mut episode: Option<u64> = None;
    // Samples fall between whole milliseconds of ticks (a tie is no lag).
    let mut sample_at = rig.now + 5;
    let mut ended_at = None;
    loop {
        let running = rig.session.status() == Status::Running;
        if !running && ended_at.is_none() {
            ended_at = Some(rig.now);
        }
        if ended_at.is_some_and(|t| rig.now >= t + 3_000) || f.presses >= max_presses {
            break;
        }
        let press_at = rig.now + 200 + rng.below(5_800);
        while sample_at < press_at {
            rig.run_until(sample_at);
            let view = rig.view();
            if view.text.is_some() {
                f.text += 1;
                episode = None;
            } else {
                f.samples += 1;
                let shown = (u64::from(view.left_seconds), u64::from(view.right_seconds));
                if shown == rig.wanted() {
                    episode = None;
                } else {
                    f.off += 1;
                    let start = *episode.get_or_insert(sample_at);
                    let len = sample_at - start + 10;
                    if len > f.max_episode_ms {
                        f.max_episode_ms = len;
                        f.max_episode_at = start;
                    }
                }
            }
            sample_at += 10;
        }
        rig.run_until(press_at);
        if rig.session.status() == Status::Running {
            rig.press();
            f.presses += 1;
        }
    }
    f
}

/// Play `control` (two seeds) and check what the clock showed.
fn check(control: &str, seed: u64) {
    let bound = round_trip_ms();
    for seed in [seed, seed + 1_000] {
        let f = play(control, seed, 40);
        assert!(
            f.samples > 2_000 && f.presses >= 4,
            "{control} (seed {seed}): too short a game to say anything: {f:?}"
        );
        assert!(
            f.max_episode_ms <= bound,
            "{control} (seed {seed}): the clock showed another second than the engine for {} \
             ms from {} ms on (bound: one round trip, {bound} ms): {f:?}",
            f.max_episode_ms,
            f.max_episode_at
        );
        // Off only within round trips: a small share of the time.
        assert!(
            f.off * 100 <= f.samples,
            "{control} (seed {seed}): off the engine in {} of {} samples",
            f.off,
            f.samples
        );
    }
}

/// One test per timing method (and the cap and per-player controls), with controls short
/// enough that flags, extra time, periods and phases happen within the game.
macro_rules! methods {
    ($($name:ident: $control:literal,)*) => {
        $(
            #[test]
            fn $name() {
                check($control, line!().into());
            }
        )*
    };
}

methods! {
    sudden_death: "G/1 d/0",
    fischer: "G/1 inc/2",
    us_delay: "G/1 d/3",
    bronstein: "G/1 br/3",
    periods: "5/1 SD/1 inc/1",
    repeating: "4/1",
    hourglass: "HG/1",
    byo_yomi: "G/0.5 byo/3x10",
    canadian: "G/0.5 can/5/1",
    double_flag: "G/1 df/20:5:hybrid",
    phased_countdown: "G/1 rsv/10",
    phased_increment: "G/1 pinc/5:4:1",
    phased_swing: "G/1 swing/10:6",
    cap: "G/1 inc/5 cap/2",
    per_player: "W{G/1 inc/2} B{G/0.5 inc/5}",
}
