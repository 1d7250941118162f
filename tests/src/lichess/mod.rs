//! A local HTTP server standing in for lichess.org's broadcast API, for the bridge's tests
//! and benchmarks (the real service is out of reach from the test machines). It behaves as
//! `../shared/spec/lichess-broadcast.md` says Lichess does: the push with its 100-game cut
//! and game-by-game answers ([`relay`], [`pgn`]), the tour and round endpoints with their
//! forms ([`forms`]), the tokens and their scopes (401, 403 with the OAuth headers, 404,
//! 429 past the daily limits), and keeps every round's chapters for the tests to read.
//!
//! Besides what Lichess does, a test may inject faults a network or proxy causes
//! ([`StandIn::fail_next`]: e.g. a 503 before the answer), said as such.
//!
//! Test fixture, not part of the product. One request per connection, served in order.

mod endpoints;
pub mod forms;
pub mod pgn;
pub mod relay;
pub mod rig;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard, mpsc};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::rig::WAIT;
use relay::Round;

/// The tokens the stand-in knows: (token, user, scopes).
pub const TOKENS: [(&str, &str, &[&str]); 6] = [
    (
        "lip_testtoken123",
        "operator",
        &["study:read", "study:write"],
    ),
    ("lip_fleettoken", "operator", &["study:read", "study:write"]),
    ("lip_delaytoken", "operator", &["study:read", "study:write"]),
    ("lip_benchtoken", "operator", &["study:read", "study:write"]),
    ("lip_readonly", "operator", &["study:read"]),
    ("lip_stranger", "stranger", &["study:read", "study:write"]),
];

/// One request the stand-in received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The path with its query.
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The status it was answered with.
    pub status: u16,
    /// The answer's body.
    pub answer: String,
    /// How long the stand-in took to answer it.
    pub served_in: Duration,
}

impl Request {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The round id of a push (`/api/broadcast/round/{id}/push`).
    pub fn pushed_round(&self) -> Option<&str> {
        self.path
            .strip_prefix("/api/broadcast/round/")?
            .strip_suffix("/push")
    }
}

/// A tour.
#[derive(Debug, Clone)]
pub struct Tour {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub owner: String,
    pub created_at: u64,
    /// Its form's fields as last sent (`info.tc`, `players`, `markdown`, ...).
    pub fields: BTreeMap<String, String>,
    /// Its rounds' ids, in order of creation.
    pub rounds: Vec<String>,
}

impl Tour {
    fn json(&self, base: &str) -> Value {
        let info: BTreeMap<&str, &str> = self
            .fields
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix("info.")?, v.as_str())))
            .collect();
        json!({
            "id": self.id,
            "name": self.name,
            "slug": self.slug,
            "info": info,
            "createdAt": self.created_at,
            "url": format!("{base}/broadcast/{}/{}", self.slug, self.id),
        })
    }
}

#[derive(Debug, Default)]
struct State {
    base: String,
    tours: BTreeMap<String, Tour>,
    rounds: BTreeMap<String, Round>,
    faults: VecDeque<u16>,
    /// Tours and rounds each user created (the daily limits).
    created: BTreeMap<String, (u32, u32)>,
    next_id: u64,
}

/// The stand-in, served until it is dropped (its thread ends with the test process).
#[derive(Debug)]
pub struct StandIn {
    /// `http://127.0.0.1:PORT`: the bridge's `server`.
    pub base: String,
    state: Arc<Mutex<State>>,
    /// Every request, answered, in order.
    pub requests: mpsc::Receiver<Request>,
}

/// A slug of `name`: lower case letters and digits, `-` between words.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl StandIn {
    /// Serve on a free port of 127.0.0.1.
    pub fn start() -> Result<StandIn> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let base = format!("http://{}", listener.local_addr()?);
        let state = Arc::new(Mutex::new(State {
            base: base.clone(),
            next_id: 1,
            ..State::default()
        }));
        let (tx, rx) = mpsc::channel();
        let served = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let started = Instant::now();
                let Ok(mut req) = read_request(&mut stream) else {
                    continue;
                };
                let (status, headers, body) = {
                    let mut s = served.lock().unwrap_or_else(|p| p.into_inner());
                    s.answer(&req)
                };
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                let _ = stream.write_all(format!("{head}\r\n{body}").as_bytes());
                req.status = status;
                req.answer = body;
                req.served_in = started.elapsed();
                if tx.send(req).is_err() {
                    return;
                }
            }
        });
        Ok(StandIn {
            base,
            state,
            requests: rx,
        })
    }

    /// [`StandIn::start`] with the push rounds `ids` ([`StandIn::add_round`]).
    pub fn with_rounds(ids: &[&str]) -> Result<StandIn> {
        let s = StandIn::start()?;
        for id in ids {
            s.add_round(id);
        }
        Ok(s)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A push round `id` (8 letters and digits) of the tour "Test broadcast", as one made on
    /// lichess.org by the user of the test tokens.
    pub fn add_round(&self, id: &str) {
        let mut s = self.lock();
        let tour = s.tours.entry("TestTour".into()).or_insert_with(|| Tour {
            id: "TestTour".into(),
            name: "Test broadcast".into(),
            slug: "test-broadcast".into(),
            owner: "operator".into(),
            created_at: now_ms(),
            fields: BTreeMap::new(),
            rounds: Vec::new(),
        });
        tour.rounds.push(id.to_owned());
        let mut round = Round::new(id, "TestTour", &format!("Round {id}"), now_ms());
        round.started = true;
        s.rounds.insert(id.to_owned(), round);
    }

    /// A round `id` that pulls its games from a URL (a push to it is refused).
    pub fn add_upstream_round(&self, id: &str) {
        self.add_round(id);
        if let Some(r) = self.lock().rounds.get_mut(id) {
            r.upstream = true;
        }
    }

    /// Round `id`'s source URL removed (`false`) or set (`true`), as its owner does in the
    /// round's settings on lichess.org.
    pub fn set_upstream(&self, id: &str, upstream: bool) {
        if let Some(r) = self.lock().rounds.get_mut(id) {
            r.upstream = upstream;
        }
    }

    /// Answer the next pushes with these statuses instead (a fault of the network or a
    /// proxy in front of Lichess, not Lichess's own answer), then as Lichess would.
    pub fn fail_next(&self, statuses: &[u16]) {
        self.lock().faults.extend(statuses);
    }

    /// Round `id` as it stands (pushes held back by its delay applied when due).
    pub fn round(&self, id: &str) -> Option<Round> {
        let mut s = self.lock();
        let r = s.rounds.get_mut(id)?;
        r.catch_up(now_ms());
        Some(r.clone())
    }

    /// Every tour.
    pub fn tours(&self) -> Vec<Tour> {
        self.lock().tours.values().cloned().collect()
    }

    /// Set round `id`'s status as its owner would on lichess.org (`finished`: now).
    pub fn set_finished(&self, id: &str, finished: bool) {
        if let Some(r) = self.lock().rounds.get_mut(id) {
            r.finished_at = finished.then(now_ms);
        }
    }

    /// Wait until round `id` is as `pred` wants, and give it.
    pub fn wait_round(&self, id: &str, what: &str, pred: impl Fn(&Round) -> bool) -> Result<Round> {
        let deadline = Instant::now() + WAIT * 2;
        loop {
            let round = self.round(id).with_context(|| format!("no round {id}"))?;
            if pred(&round) {
                return Ok(round);
            }
            if Instant::now() > deadline {
                bail!("round {id} never had {what}; it has {:#?}", round.chapters);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The next request that `pred` accepts, within the harness's wait.
    pub fn next_request(&self, what: &str, pred: impl Fn(&Request) -> bool) -> Result<Request> {
        let deadline = Instant::now() + WAIT * 2;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let r = self
                .requests
                .recv_timeout(left)
                .with_context(|| format!("no {what} reached the stand-in"))?;
            if pred(&r) {
                return Ok(r);
            }
        }
    }
}

fn read_request(stream: &mut TcpStream) -> Result<Request> {
    stream.set_read_timeout(Some(WAIT))?;
    let mut r = BufReader::new(stream);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().context("method")?.to_owned();
    let path = parts.next().context("path")?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body)?;
    Ok(Request {
        method,
        path,
        headers,
        body: String::from_utf8(body)?,
        status: 0,
        answer: String::new(),
        served_in: Duration::ZERO,
    })
}
