//! The JSON Schemas in docs/schema/ against real output: `status --json` (one clock and
//! all), `list --json` and `monitor --json` lines of a game, from the real daemon, each
//! validated by Python's `jsonschema` (an independent validator). A wrong instance is
//! refused by the same check, so the check can fail.

use std::io::Write;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use chessclock_tests::paths::repo_path;
use chessclock_tests::rig::{Daemon, Spawned, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::{Value, json};

/// Validate `instance` against docs/schema/`file` with Python's jsonschema.
fn validate(file: &str, instance: &Value) -> Result<()> {
    let script = "import json, sys, jsonschema\n\
                  schema = json.load(open(sys.argv[1]))\n\
                  jsonschema.validate(json.load(sys.stdin), schema)\n";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .arg(repo_path(&format!("docs/schema/{file}")))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("python3 with jsonschema (./scripts/test.sh installs it)")?;
    child
        .stdin
        .take()
        .context("stdin")?
        .write_all(instance.to_string().as_bytes())?;
    let out = child.wait_with_output()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().rev().take(12).collect::<Vec<_>>().join("\n");
        bail!("{file} refuses {instance}:\n{last}");
    }
    Ok(())
}

#[test]
fn status_list_and_monitor_output_follow_the_published_schemas() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("schemas")?;
    let config = write_config(dir.path(), &[], "default_time_control = \"G/5 d/0\"")?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    let mut monitor = Spawned::ctl(bus.address(), &["monitor", "--json"])?;
    assert!(d.ctl(&["add-virtual", "board one"]).status.success());
    // A changed property: `monitor` prints it as `properties_changed`.
    assert!(d.ctl(&["set", "0", "G/3 d/0"]).status.success());
    assert!(d.ctl(&["start", "0"]).status.success());
    assert!(d.ctl(&["press", "0", "white"]).status.success());
    assert!(d.ctl(&["result", "0", "1/2-1/2"]).status.success());

    let one = d.ctl_json(&["status", "0", "--json"])?;
    validate("clock-status.json", &one)?;
    validate("clock-list.json", &d.ctl_json(&["status", "--json"])?)?;
    validate("clock-list.json", &d.ctl_json(&["list", "--json"])?)?;
    let (_, last) = monitor.wait_json(0, "the result's state change", |v| {
        v["event"] == "state_changed" && v["new"] == "ended"
    })?;
    let lines: Vec<Value> = monitor
        .seen()
        .iter()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(lines.len() >= 3, "a start, a press, the end: {lines:?}");
    assert!(
        lines.iter().any(|v| v["event"] == "properties_changed"),
        "the control's change: {lines:?}"
    );
    for ev in lines.iter().chain([&last]) {
        validate("event.json", ev)?;
    }

    // The check can fail: a status without its times, an event of no known kind.
    let mut broken = one.clone();
    broken.as_object_mut().context("object")?.remove("white_ms");
    assert!(validate("clock-status.json", &broken).is_err());
    assert!(validate("event.json", &json!({"event": "teleported"})).is_err());
    Ok(())
}
