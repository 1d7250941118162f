//! The words of the clock methods over a real bus (issue 10 item 7): sides, halves, results
//! and adjust operations take exactly the spellings the CLI and the configuration take; an
//! unknown one, or an unknown Adjust field, is `InvalidArgument` naming the accepted ones,
//! and a huge argument is quoted back only in part. Nothing changes on a refusal.

use anyhow::Result;
use chessclock_tests::ClockFields;
use chessclock_tests::bus_client::{BusRig, typed};

fn rig() -> Result<BusRig> {
    BusRig::start("G/5 d/0")
}

/// The error name and message of a failed call.
fn failure<T: std::fmt::Debug>(r: zbus::Result<T>) -> (String, String) {
    match r {
        Err(zbus::Error::MethodError(name, desc, _)) => {
            (name.as_str().to_owned(), desc.unwrap_or_default())
        }
        other => panic!("expected a method error, got {other:?}"),
    }
}

#[track_caller]
fn assert_invalid<T: std::fmt::Debug>(r: zbus::Result<T>, wants: &[&str]) {
    let (name, msg) = failure(r);
    assert_eq!(name, typed("InvalidArgument"), "{msg}");
    for want in wants {
        assert!(msg.contains(want), "{want:?} missing from: {msg}");
    }
    assert!(msg.chars().count() < 400, "{} characters: {msg}", msg.len());
}

#[test]
fn unknown_words_and_adjust_fields_are_invalid_argument_listing_the_accepted_ones() -> Result<()> {
    let r = rig()?;
    let c = &r.client;
    let clock = r.ready_clock0()?;

    // Strict: no case folding, no abbreviations, no surrounding blanks.
    for side in ["White", "w", " white", "WHITE"] {
        assert_invalid(
            c.run(clock.start(side)),
            &["is not a side", "\"white\" or \"black\""],
        );
    }
    assert_eq!(
        c.run(clock.game_state())?,
        "ready",
        "a refused start changes nothing"
    );
    for half in ["Left", "l", "right "] {
        assert_invalid(
            c.run(clock.set_white_side(half)),
            &["is not a half", "\"left\" or \"right\""],
        );
    }
    assert_eq!(c.run(clock.white_side())?, "left");
    for result in ["½-½", "1-0 ", "draw"] {
        assert_invalid(
            c.run(clock.set_result(result)),
            &["is not a result", "\"1-0\", \"0-1\" or \"1/2-1/2\""],
        );
    }

    // Adjust: an unknown field or operation, whatever the game's state.
    assert_invalid(
        c.run(clock.adjust("white", "bogus_ms", "add", 1000)),
        &["\"bogus_ms\" is not an adjustable field", "main_ms"],
    );
    assert_invalid(
        c.run(clock.adjust("white", "main_ms", "Add", 1000)),
        &["is not an adjust operation", "\"set\" or \"add\""],
    );

    // 10 kB of input: quoted back only in part.
    let huge = "x".repeat(10_000);
    assert_invalid(c.run(clock.press(&huge)), &["\"xxxx", "…", "is not a side"]);
    assert_invalid(
        c.run(clock.adjust("white", &huge, "set", 0)),
        &["…", "is not an adjustable field"],
    );
    assert_invalid(c.run(clock.set_mode(&huge)), &["…", "is not a mode"]);
    let notation = format!("G/5 {huge}");
    assert_invalid(
        c.run(clock.set_time_control(&notation)),
        &["\"G/5 xxx", "…"],
    );

    // The accepted spellings work.
    c.run(clock.set_white_side("right"))?;
    c.run(clock.start("white"))?;
    Ok(())
}
