//! Alerts that reach a phone (`[[alert]]` in bridge.toml, docs/bridge.md): the watcher
//! ([`rules`]) looks at every clock on each change and once a second; each alert due is
//! POSTed to the table's URL (a webhook as JSON, or an ntfy topic as text), retried three
//! times with a growing pause.
//!
//! Owns the sending; what is due is the pure watcher's.

pub(crate) mod rules;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chessclock_api::ClockStatus;

use crate::hub::Hub;
pub(crate) use rules::AlertSettings;
use rules::{Alert, Format, Watcher};

/// Attempts per alert.
const ATTEMPTS: u32 = 3;

/// Watch the hub's clocks and send `settings`' alerts for as long as the bridge runs.
pub(crate) async fn run(
    hub: Arc<Hub>,
    settings: AlertSettings,
    tls: Option<Arc<rustls::ClientConfig>>,
) {
    let client = match crate::tls::http_client(Duration::from_secs(10), tls) {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(url = %settings.url, "cannot make an HTTP client for alerts: {e}");
            return;
        }
    };
    let base = Instant::now();
    let mut watcher = Watcher::new(settings.clone());
    let mut live = hub.attach(None).live;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            ev = live.recv() => {
                if matches!(ev, Err(tokio::sync::broadcast::error::RecvError::Closed)) {
                    return;
                }
            }
            _ = tick.tick() => {}
        }
        let now_ms = u64::try_from(base.elapsed().as_millis()).unwrap_or(u64::MAX);
        let clocks = hub.clocks();
        let refs: Vec<&ClockStatus> = clocks.iter().map(|c| &**c).collect();
        for alert in watcher.check(now_ms, &refs) {
            tokio::spawn(send(client.clone(), settings.clone(), alert));
        }
    }
}

/// POST `alert` to the table's URL, retrying.
async fn send(client: reqwest::Client, settings: AlertSettings, alert: Alert) {
    for attempt in 0..ATTEMPTS {
        let request = match settings.format {
            Format::Json => client.post(&settings.url).json(&alert),
            Format::Ntfy => client
                .post(&settings.url)
                .header("Title", format!("chessclockd: board {}", alert.board))
                .header("Tags", "chess_pawn")
                .body(alert.text.clone()),
        };
        match request.send().await {
            Ok(r) if r.status().is_success() => {
                tracing::info!(url = %settings.url, "alert sent: {}", alert.text);
                return;
            }
            Ok(r) => tracing::warn!(
                url = %settings.url,
                "the alert server answered {} (attempt {} of {ATTEMPTS})",
                r.status(),
                attempt + 1
            ),
            Err(e) => tracing::warn!(
                url = %settings.url,
                "cannot send the alert ({e}; attempt {} of {ATTEMPTS})",
                attempt + 1
            ),
        }
        tokio::time::sleep(Duration::from_secs(1 << attempt)).await;
    }
    tracing::error!(url = %settings.url, "alert not sent after {ATTEMPTS} attempts: {}", alert.text);
}
