//! The fleet's MQTT schema, shared by the bridge (which publishes) and `chessclockctl fleet`
//! (which reads): broker URLs (`mqtt://`, `mqtts://user:password@host`) and topic names
//! (docs/bridge.md). Payloads are
//! [`crate::ClockStatus`] JSON, and a board's PGN text on its `board/<B>/pgn` topic; what the
//! screens of the fleet make of them is [`view`]. Pure: no MQTT client here.

pub mod view;

/// An MQTT broker address: where, whether over TLS, and as whom.
#[derive(Clone, PartialEq, Eq)]
pub struct Broker {
    /// Host name or address.
    pub host: String,
    /// TCP port.
    pub port: u16,
    /// `mqtts://`: TLS (port 8883 by default).
    pub tls: bool,
    /// The user name of the URL (`mqtts://user@host`), percent-decoded.
    pub user: Option<String>,
    /// The password of the URL (`mqtts://user:password@host`), percent-decoded. Never
    /// printed: [`Broker`]'s `Debug` and [`Broker::redacted`] leave it out.
    pub password: Option<String>,
}

impl std::fmt::Debug for Broker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Broker")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .finish()
    }
}

impl Broker {
    /// The URL without its password, for messages: `mqtts://user@host:8883`.
    pub fn redacted(&self) -> String {
        let scheme = if self.tls { "mqtts" } else { "mqtt" };
        let user = self
            .user
            .as_deref()
            .map(|u| format!("{u}@"))
            .unwrap_or_default();
        let host = match self.host.contains(':') {
            true => format!("[{}]", self.host),
            false => self.host.clone(),
        };
        format!("{scheme}://{user}{host}:{}", self.port)
    }
}

/// `mqtt://` or `mqtts://[user[:password]@]host[:port]` as a broker address (port 1883, or
/// 8883 for `mqtts://`, by default). Errors say what is wrong without quoting a password.
pub fn parse_broker(url: &str) -> Result<Broker, String> {
    const SHAPE: &str = "mqtt://host[:port] or mqtts://[user@]host[:port]";
    let (scheme, _) = url.split_once("://").unwrap_or_default();
    let (tls, default_port) = match scheme {
        "mqtt" => (false, 1883),
        "mqtts" => (true, 8883),
        // Not the URL itself: it may hold a password.
        "" => return Err(format!("MQTT broker URL has no scheme; write {SHAPE}")),
        other => {
            return Err(format!(
                "MQTT broker URL: the scheme {:?} is neither mqtt nor mqtts; write {SHAPE}",
                other.chars().take(20).collect::<String>()
            ));
        }
    };
    let parsed = url::Url::parse(url).map_err(|e| match e {
        url::ParseError::InvalidPort => {
            format!("MQTT broker URL: the port is not a port number (1 to 65535); write {SHAPE}")
        }
        url::ParseError::EmptyHost => format!("MQTT broker URL names no host; write {SHAPE}"),
        e => format!("MQTT broker URL is not a URL ({e}); write {SHAPE}"),
    })?;
    let host = parsed.host_str().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(format!("MQTT broker URL names no host; write {SHAPE}"));
    }
    if !matches!(parsed.path(), "" | "/") || parsed.query().is_some() {
        return Err(format!(
            "MQTT broker URL has a path or a query, which MQTT does not use; write {SHAPE}"
        ));
    }
    let decode = |part: &str, what: &str| {
        percent_encoding::percent_decode_str(part)
            .decode_utf8()
            .map(|s| s.into_owned())
            .map_err(|_| format!("MQTT broker URL: the {what} is not UTF-8 once decoded"))
    };
    let user = match parsed.username() {
        "" => None,
        u => Some(decode(u, "user name")?),
    };
    let password = parsed
        .password()
        .map(|p| decode(p, "password"))
        .transpose()?;
    if password.is_some() && user.is_none() {
        return Err(format!(
            "MQTT broker URL has a password but no user name; write {SHAPE} with user:password@"
        ));
    }
    Ok(Broker {
        host: host.to_owned(),
        port: parsed.port().unwrap_or(default_port),
        tls,
        user,
        password,
    })
}

/// Topic names of one machine.
#[derive(Debug, Clone)]
pub struct Topics {
    prefix: String,
}

impl Topics {
    /// Topics under `chessclockd/<host>/`.
    pub fn new(host: &str) -> Topics {
        // `+`, `#` and `/` have a meaning in topics: keep a host name from splitting them.
        let host: String = host
            .chars()
            .map(|c| if matches!(c, '+' | '#' | '/') { '_' } else { c })
            .collect();
        Topics {
            prefix: format!("chessclockd/{host}"),
        }
    }

    /// `online` / `offline`.
    pub fn status(&self) -> String {
        format!("{}/status", self.prefix)
    }

    /// The bridge's heartbeat, not retained: `{"now_us": N}`, its CLOCK_MONOTONIC
    /// microseconds, every few seconds ([`HEARTBEAT_EVERY_S`]): a fleet bridge knows by it
    /// that the machine is alive while its boards have nothing to say, and how its clock
    /// stands against its own (to count a running clock on).
    pub fn heartbeat(&self) -> String {
        format!("{}/heartbeat", self.prefix)
    }

    /// A clock's retained state.
    pub fn state(&self, index: u32) -> String {
        format!("{}/clock/{index}/state", self.prefix)
    }

    /// A clock's events.
    pub fn event(&self, index: u32) -> String {
        format!("{}/clock/{index}/event", self.prefix)
    }

    /// A board's retained PGN (by board number, not clock index: the boards of a round).
    pub fn pgn(&self, board: u32) -> String {
        format!("{}/board/{board}/pgn", self.prefix)
    }

    /// A paper board's retained PGN (a board of the round without an e-board, by its
    /// number; its result entered by hand).
    pub fn paper(&self, board: u32) -> String {
        format!("{}/paper/{board}/pgn", self.prefix)
    }

    /// The pushing bridge's problems of the boards it pushes, retained (JSON: a list of
    /// `[board, problem]`; `[]`: none).
    pub fn push_problems(&self) -> String {
        format!("{}/push/problems", self.prefix)
    }

    /// The host of a push problems topic (`chessclockd/<host>/push/problems`).
    pub fn parse_push_problems(topic: &str) -> Option<&str> {
        topic
            .strip_prefix("chessclockd/")?
            .strip_suffix("/push/problems")
            .filter(|h| !h.contains('/'))
    }

    /// The host and board number of a PGN topic (`chessclockd/<host>/board/<B>/pgn`).
    pub fn parse_pgn(topic: &str) -> Option<(&str, u32)> {
        let rest = topic.strip_prefix("chessclockd/")?;
        let (host, rest) = rest.split_once('/')?;
        let board = rest.strip_prefix("board/")?.strip_suffix("/pgn")?;
        Some((host, board.parse().ok()?))
    }

    /// The host and board number of a paper board's topic
    /// (`chessclockd/<host>/paper/<B>/pgn`).
    pub fn parse_paper(topic: &str) -> Option<(&str, u32)> {
        let rest = topic.strip_prefix("chessclockd/")?;
        let (host, rest) = rest.split_once('/')?;
        let board = rest.strip_prefix("paper/")?.strip_suffix("/pgn")?;
        Some((host, board.parse().ok()?))
    }

    /// The host and clock index of a state topic (`chessclockd/<host>/clock/<index>/state`).
    pub fn parse_state(topic: &str) -> Option<(&str, u32)> {
        let rest = topic.strip_prefix("chessclockd/")?;
        let (host, rest) = rest.split_once('/')?;
        let index = rest.strip_prefix("clock/")?.strip_suffix("/state")?;
        Some((host, index.parse().ok()?))
    }

    /// The host of a status topic (`chessclockd/<host>/status`).
    pub fn parse_status(topic: &str) -> Option<&str> {
        topic.strip_prefix("chessclockd/")?.strip_suffix("/status")
    }

    /// The host of a heartbeat topic (`chessclockd/<host>/heartbeat`).
    pub fn parse_heartbeat(topic: &str) -> Option<&str> {
        topic
            .strip_prefix("chessclockd/")?
            .strip_suffix("/heartbeat")
            .filter(|h| !h.contains('/'))
    }
}

/// Subscriptions that see every machine's clocks and status.
pub const FLEET_SUBSCRIPTIONS: [&str; 2] = ["chessclockd/+/clock/+/state", "chessclockd/+/status"];

/// The subscription that sees every machine's bridge's heartbeat.
pub const FLEET_HEARTBEAT: &str = "chessclockd/+/heartbeat";

/// How often a bridge publishes its heartbeat ([`Topics::heartbeat`]), in seconds.
pub const HEARTBEAT_EVERY_S: u64 = 5;

/// The subscription that sees every machine's boards' PGN (a fleet round).
pub const FLEET_PGN: &str = "chessclockd/+/board/+/pgn";

/// The subscription that sees every machine's paper boards' PGN (a fleet round).
pub const FLEET_PAPER: &str = "chessclockd/+/paper/+/pgn";

/// The subscription that sees what every machine's pushing bridge says of its boards.
pub const FLEET_PUSH_PROBLEMS: &str = "chessclockd/+/push/problems";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_urls_parse_with_default_port_and_bad_ones_say_why() {
        let b = parse_broker("mqtt://broker.local").expect("default port");
        assert_eq!((b.host.as_str(), b.port), ("broker.local", 1883));
        let b = parse_broker("mqtt://127.0.0.1:18830/").expect("port");
        assert_eq!((b.host.as_str(), b.port), ("127.0.0.1", 18830));
        let e = parse_broker("http://x").expect_err("scheme");
        assert!(e.contains("mqtt://"), "{e}");
        let e = parse_broker("mqtt://x:99999").expect_err("port");
        assert!(e.contains("not a port"), "{e}");
        assert!(parse_broker("mqtt://").is_err());
        assert!(!b.tls && b.user.is_none() && b.password.is_none());
    }

    #[test]
    fn mqtts_urls_carry_tls_and_credentials_and_never_print_the_password() {
        let b = parse_broker("mqtts://pi%40club:s%3Acr%40t@broker.local").expect("mqtts");
        assert_eq!(
            (b.host.as_str(), b.port, b.tls),
            ("broker.local", 8883, true)
        );
        assert_eq!(b.user.as_deref(), Some("pi@club"));
        assert_eq!(b.password.as_deref(), Some("s:cr@t"));
        assert_eq!(b.redacted(), "mqtts://pi@club@broker.local:8883");
        assert!(!format!("{b:?}").contains("s:cr@t"), "{b:?}");
        let b = parse_broker("mqtts://u@[::1]:18883").expect("ipv6");
        assert_eq!((b.host.as_str(), b.port), ("::1", 18883));
        assert_eq!(b.redacted(), "mqtts://u@[::1]:18883");
        let e = parse_broker("ssl://user:hunter2@x").expect_err("scheme");
        assert!(
            e.contains("\"ssl\" is neither") && !e.contains("hunter2"),
            "{e}"
        );
        let e = parse_broker("pi:hunter2@broker").expect_err("no scheme");
        assert!(e.contains("no scheme") && !e.contains("hunter2"), "{e}");
        let e = parse_broker("mqtts://:hunter2@x").expect_err("no user");
        assert!(e.contains("no user name") && !e.contains("hunter2"), "{e}");
        let e = parse_broker("mqtt://x/topic").expect_err("path");
        assert!(e.contains("path"), "{e}");
    }

    #[test]
    fn topics_follow_the_documented_shape_and_parse_back() {
        let t = Topics::new("pi-4");
        assert_eq!(t.state(3), "chessclockd/pi-4/clock/3/state");
        assert_eq!(t.event(0), "chessclockd/pi-4/clock/0/event");
        assert_eq!(t.status(), "chessclockd/pi-4/status");
        assert_eq!(Topics::new("a/b#").status(), "chessclockd/a_b_/status");
        assert_eq!(Topics::parse_state(&t.state(3)), Some(("pi-4", 3)));
        assert_eq!(Topics::parse_state(&t.event(3)), None);
        assert_eq!(Topics::parse_status(&t.status()), Some("pi-4"));
        assert_eq!(t.pgn(12), "chessclockd/pi-4/board/12/pgn");
        assert_eq!(Topics::parse_pgn(&t.pgn(12)), Some(("pi-4", 12)));
        assert_eq!(Topics::parse_pgn(&t.state(12)), None);
        assert_eq!(Topics::parse_pgn("chessclockd/pi-4/board/x/pgn"), None);
        assert_eq!(t.push_problems(), "chessclockd/pi-4/push/problems");
        assert_eq!(
            Topics::parse_push_problems(&t.push_problems()),
            Some("pi-4")
        );
        assert_eq!(Topics::parse_push_problems(&t.pgn(1)), None);
        assert_eq!(t.heartbeat(), "chessclockd/pi-4/heartbeat");
        assert_eq!(Topics::parse_heartbeat(&t.heartbeat()), Some("pi-4"));
        assert_eq!(Topics::parse_heartbeat(&t.status()), None);
    }
}
