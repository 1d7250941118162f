//! The fleet's MQTT schema, shared by the bridge (which publishes) and `chessclockctl fleet`
//! (which reads): broker URLs and topic names (docs/bridge.md). Payloads are
//! [`crate::ClockStatus`] JSON. Pure: no MQTT client here.

/// An MQTT broker address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker {
    /// Host name or address.
    pub host: String,
    /// TCP port.
    pub port: u16,
}

/// `mqtt://host[:port]` as a broker address (port 1883 by default).
pub fn parse_broker(url: &str) -> Result<Broker, String> {
    let Some(rest) = url.strip_prefix("mqtt://") else {
        return Err(format!(
            "MQTT broker {url:?} is not an mqtt://host[:port] URL"
        ));
    };
    let rest = rest.trim_end_matches('/');
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
            h,
            p.parse::<u16>()
                .map_err(|_| format!("MQTT broker {url:?}: {p:?} is not a port number"))?,
        ),
        _ => (rest, 1883),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(format!("MQTT broker {url:?} names no host"));
    }
    Ok(Broker {
        host: host.to_owned(),
        port,
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

    /// A clock's retained state.
    pub fn state(&self, index: u32) -> String {
        format!("{}/clock/{index}/state", self.prefix)
    }

    /// A clock's events.
    pub fn event(&self, index: u32) -> String {
        format!("{}/clock/{index}/event", self.prefix)
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
}

/// Subscriptions that see every machine's clocks and status.
pub const FLEET_SUBSCRIPTIONS: [&str; 2] = ["chessclockd/+/clock/+/state", "chessclockd/+/status"];

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
    }
}
