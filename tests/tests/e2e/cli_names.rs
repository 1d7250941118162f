//! Naming a clock as operators do (docs/cli.md, "Naming a clock"): by its configured name,
//! by `board:N` (the clock playing board N of the round), by index; a name two clocks share
//! is an error listing them; a clock no table names gets a name that reads as no number
//! (`pts3`, not `3`); `list` shows the board numbers.
//!
//! The real `chessclockctl` and `chessclockd` on a private dbus-daemon, with emulated boards
//! from the real `chessclock-emu` on ptys.

use anyhow::Result;
use chessclock_api::names::clock_path;
use chessclock_tests::e2e::emu;
use chessclock_tests::json::s;
use chessclock_tests::rig::{Daemon, WAIT, write_config};
use chessclock_tests::{PrivateBus, TempDir};

/// The object path `chessclockctl status NAME --json` finds, or its error.
fn named(d: &Daemon, name: &str) -> Result<std::result::Result<String, String>> {
    let out = d.ctl(&["status", name, "--json"]);
    if !out.status.success() {
        return Ok(Err(String::from_utf8_lossy(&out.stderr).into_owned()));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    Ok(Ok(s(&v, "/clock").to_owned()))
}

#[test]
fn clocks_are_named_by_name_board_and_index_and_a_shared_name_is_refused() -> Result<()> {
    let dir = TempDir::new("cli-names")?;
    let bus = PrivateBus::start_session()?;
    let (one, two, three) = (emu(&[])?, emu(&[])?, emu(&[])?);
    let tables = format!(
        "[[clock]]\nport = {:?}\nname = \"twin\"\nboard = 5\n\
         [[clock]]\nport = {:?}\nname = \"twin\"\nboard = 2\n",
        one.path, two.path
    );
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], &tables)?, &[])?;
    let out = d.ctl(&["attach", &three.path]);
    anyhow::ensure!(out.status.success(), "attach: {out:?}");
    d.wait_status("2", WAIT, "the third board ready", |v| {
        s(v, "/device_state") == "ready"
    })?;

    // board:N is the round's board, whatever the index.
    assert_eq!(named(&d, "board:5")?, Ok(clock_path(0)));
    assert_eq!(named(&d, "board:2")?, Ok(clock_path(1)));
    // The attached board gets the lowest number no table gives.
    assert_eq!(named(&d, "board:1")?, Ok(clock_path(2)), "index 2, board 1");
    assert_eq!(named(&d, "1")?, Ok(clock_path(1)), "a number is an index");
    let none = named(&d, "board:9")?.expect_err("no board 9");
    assert!(none.contains("no clock plays board 9"), "{none}");

    // The default name is the pty's, and reads as no number; it names its clock.
    let st = d.ctl_json(&["status", "2", "--json"])?;
    let name = s(&st, "/name").to_owned();
    assert!(
        name.starts_with("pts") && name.parse::<u32>().is_err(),
        "default name {name:?} of {}",
        three.path
    );
    assert_eq!(named(&d, &name)?, Ok(clock_path(2)));

    // A name two clocks share names neither: the error lists them.
    let twin = named(&d, "twin")?.expect_err("shared name");
    assert!(
        twin.contains("2 clocks have the name \"twin\": 0, 1"),
        "{twin}"
    );
    let out = d.ctl(&["pause", "twin"]);
    assert_eq!(out.status.code(), Some(1), "a control verb refuses it too");

    // A control verb takes board:N: board 2's clock gets the control, no other.
    let out = d.ctl(&["set", "board:2", "G/3"]);
    anyhow::ensure!(out.status.success(), "set board:2: {out:?}");
    let list = d.ctl_json(&["list", "--json"])?;
    let controls: Vec<&str> = (0..3)
        .map(|i| s(&list, &format!("/{i}/time_control")))
        .collect();
    assert_eq!(controls[1], "G/3 d/0", "{list}");
    assert_ne!(controls[0], "G/3 d/0", "{list}");

    // `list`'s BOARD column is the board number, its lines in board order.
    let text = String::from_utf8_lossy(&d.ctl(&["list"]).stdout).into_owned();
    let boards: Vec<(String, String)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0].to_owned(), w[1].to_owned())
        })
        .collect();
    let want: Vec<(String, String)> = [("2", "1"), ("1", "2"), ("0", "5")]
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
    assert_eq!(boards, want, "{text}");
    Ok(())
}
