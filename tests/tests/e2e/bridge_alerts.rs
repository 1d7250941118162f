//! `[[alert]]` end to end: the real daemon and bridge, a virtual clock whose flag falls, and a
//! local HTTP server standing in for a webhook and an ntfy topic (a phone's push service is
//! out of reach here): the flag and the result arrive as JSON at the webhook and as text
//! with a title at the ntfy URL; a server that fails first is retried.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chessclock_tests::bridge::Bridge;
use chessclock_tests::rig::{Daemon, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// One request the server took: its path, the Title header and the body.
#[derive(Debug)]
struct Posted {
    path: String,
    title: String,
    body: String,
}

/// A local HTTP server answering 503 to the first `fail_first` requests, 200 after; what
/// it took comes through the channel.
fn server(fail_first: usize) -> Result<(String, mpsc::Receiver<Posted>)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?.to_string();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let path = line
                .split_whitespace()
                .nth(1)
                .unwrap_or_default()
                .to_owned();
            let (mut length, mut title) = (0usize, String::new());
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
                let (k, v) = h.split_once(':').unwrap_or_default();
                match k.to_ascii_lowercase().as_str() {
                    "content-length" => length = v.trim().parse().unwrap_or(0),
                    "title" => title = v.trim().to_owned(),
                    _ => {}
                }
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            let code = if n < fail_first { "503 Busy" } else { "200 OK" };
            let _ = write!(stream, "HTTP/1.1 {code}\r\ncontent-length: 0\r\n\r\n");
            if n >= fail_first {
                let body = String::from_utf8_lossy(&body).into_owned();
                if tx.send(Posted { path, title, body }).is_err() {
                    return;
                }
            }
        }
    });
    Ok((addr, rx))
}

fn take(rx: &mpsc::Receiver<Posted>, n: usize) -> Result<Vec<Posted>> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut got = Vec::new();
    while got.len() < n {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(p) => got.push(p),
            Err(_) => bail!("{} of {n} alerts arrived: {got:?}", got.len()),
        }
    }
    Ok(got)
}

#[test]
fn a_flag_and_its_result_reach_a_webhook_and_an_ntfy_topic() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-alerts")?;
    let config = write_config(dir.path(), &[], "default_time_control = \"G/2s d/0\"")?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    // The webhook fails once: the first alert is retried.
    let (hook, hooked) = server(1)?;
    let (ntfy, notified) = server(0)?;
    let settings = dir.path().join("bridge.toml");
    std::fs::write(
        &settings,
        format!(
            "[[alert]]\nurl = \"http://{hook}/hook\"\non = [\"flag\", \"result\"]\n\n\
             [[alert]]\nurl = \"http://{ntfy}/tournament\"\nformat = \"ntfy\"\n\
             on = [\"result\"]\n"
        ),
    )?;
    let _bridge = Bridge::spawn(
        bus.address(),
        &["--config", settings.to_str().context("path")?],
    )?;
    anyhow::ensure!(d.ctl(&["add-virtual", "Board 5"]).status.success());
    anyhow::ensure!(d.ctl(&["start", "0"]).status.success());

    let mut got = take(&hooked, 2)?;
    got.sort_by(|a, b| a.body.cmp(&b.body));
    let json: Vec<Value> = got
        .iter()
        .map(|p| serde_json::from_str(&p.body))
        .collect::<Result<_, _>>()?;
    let kinds: Vec<&str> = json.iter().filter_map(|v| v["kind"].as_str()).collect();
    assert!(
        kinds.contains(&"flag") && kinds.contains(&"result"),
        "{json:?}"
    );
    for v in &json {
        assert_eq!(v["clock"], 0, "{v}");
        assert_eq!(v["board"], 1, "{v}");
        assert_eq!(v["name"], "Board 5", "{v}");
    }
    let flag = json.iter().find(|v| v["kind"] == "flag").context("flag")?;
    assert!(
        flag["text"]
            .as_str()
            .is_some_and(|t| t.contains("white's flag fell")),
        "{flag}"
    );
    assert!(got.iter().all(|p| p.path == "/hook"));

    let pushed = take(&notified, 1)?;
    assert_eq!(pushed[0].path, "/tournament");
    assert_eq!(pushed[0].title, "chessclockd: board 1");
    assert!(pushed[0].body.contains("0-1"), "{pushed:?}");
    Ok(())
}

#[test]
fn an_alert_url_that_is_not_http_is_refused_with_the_key() -> Result<()> {
    let dir = TempDir::new("bridge-alert-bad")?;
    let settings = dir.path().join("bridge.toml");
    std::fs::write(&settings, "[[alert]]\nurl = \"ntfy.sh/topic\"\n")?;
    let out = chessclock_tests::rig::check_config("chessclock-bridge", &settings);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("alert[0].url") && err.contains("https://ntfy.sh/"),
        "{err}"
    );
    Ok(())
}
