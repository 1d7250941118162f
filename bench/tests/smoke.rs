//! End-to-end smoke test of the bench: a short run with two boards against the real daemon
//! (the debug build next to the test), checking that the JSON report has every figure and
//! that the figures that are facts, not timings, are sane (every press seen once, every
//! press answered, conservation to the engine's millisecond). No assertion on a latency or a
//! CPU figure: this is a benchmark.

use std::process::Command;

use serde_json::Value;

fn num(v: &Value, ptr: &str) -> f64 {
    v.pointer(ptr)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("the report has no number at {ptr}: {v:#}"))
}

#[test]
fn a_short_run_reports_every_figure() {
    let out = Command::new(env!("CARGO_BIN_EXE_chessclock-bench"))
        .args(["--sizes", "2", "--duration", "14", "--seed", "3", "--json"])
        .output()
        .expect("the bench runs");
    assert!(
        out.status.success(),
        "chessclock-bench failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).expect("the report is JSON");
    assert!(num(&r, "/machine/nproc") >= 1.0);
    assert!(
        r.pointer("/machine/model_name")
            .and_then(Value::as_str)
            .is_some()
    );
    assert!(num(&r, "/floor/pty_one_way_us/count") == 200.0);
    let sizes = r["sizes"].as_array().expect("sizes");
    assert_eq!(sizes.len(), 1);
    let s = &sizes[0];
    assert_eq!(num(s, "/boards"), 2.0);

    // Facts about the games, not timings.
    let made = num(s, "/presses_made");
    assert!(made >= 2.0, "both players pressed in 14 s: {s:#}");
    assert_eq!(
        num(s, "/presses_seen"),
        made,
        "every lever change made one press"
    );
    assert_eq!(
        num(s, "/presses_unanswered"),
        0.0,
        "every press got its set-and-run"
    );
    let answered =
        num(s, "/quiet/press_to_display_ms/count") + num(s, "/polled/press_to_display_ms/count");
    assert_eq!(answered, made, "each press falls in one window");
    let lags =
        num(s, "/quiet/press_stamp_lag_ms/count") + num(s, "/polled/press_stamp_lag_ms/count");
    assert_eq!(lags, made, "each press has its snapshot");
    let split =
        num(s, "/quiet/stamp_to_display_ms/count") + num(s, "/polled/stamp_to_display_ms/count");
    assert_eq!(split, made, "each answered press splits at its stamp");
    for w in ["quiet", "polled"] {
        assert_eq!(
            num(s, &format!("/{w}/slowest_press/total_ms")),
            num(s, &format!("/{w}/press_to_display_ms/max")),
            "{w}: the slowest press split is the press of the maximum"
        );
    }
    assert_eq!(num(s, "/games"), 2.0);
    assert!(
        num(s, "/conservation_max_abs_ms") <= 2.0,
        "time charged = time elapsed to the engine's millisecond: {s:#}"
    );

    // Every other figure is there.
    for w in ["quiet", "polled"] {
        assert!(
            num(s, &format!("/{w}/fidelity/samples")) > 0.0,
            "{w} sampled"
        );
        num(s, &format!("/{w}/fidelity/off"));
        num(s, &format!("/{w}/fidelity/longest_episode_ms"));
        num(s, &format!("/{w}/daemon_cpu_percent"));
        num(s, &format!("/{w}/bench_cpu_percent"));
        num(s, &format!("/{w}/signals_per_s"));
        assert!(
            num(s, &format!("/{w}/bytes_per_s_from_board")) > 0.0,
            "{w}: boards report"
        );
        num(s, &format!("/{w}/bytes_per_s_to_board"));
        assert!(
            num(s, &format!("/{w}/pty_floor_ms/count")) >= 1.0,
            "{w}: the pty floor was probed during the window"
        );
    }
    assert!(num(s, "/status_ms/count") >= 1.0, "status was polled");
    assert!(num(s, "/daemon_rss_kib") > 0.0);
    assert!(num(s, "/daemon_threads") >= 1.0);
    num(s, "/load_start");
    num(s, "/load_end");
}
