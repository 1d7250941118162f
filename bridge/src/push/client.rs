//! The Lichess broadcast API as the bridge calls it: a round's push, a round's status
//! (`POST /broadcast/round/{id}/edit?patch=1`), and, for `chessclock-bridge broadcast`, a tour
//! and its rounds made from forms. Every answer Lichess can give becomes what to do: a 400's
//! field errors named, 401 (the token), 403 (its scope, or not a contributor), 404 (the round
//! or tour id), 429 (wait a minute), a network or TLS failure (retried).
//!
//! Owns the requests and the reading of their answers; it never logs the token.

use serde_json::Value;

use crate::settings::shorten;

/// How a call to Lichess ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// 2xx, with its body.
    Ok(String),
    /// Lichess asks to wait (429).
    SlowDown(String),
    /// Refused in a way no retry soon fixes (400, 401, 403, 404): what to do.
    Refused(String),
    /// The network, TLS, or a 5xx: retry.
    Failed(String),
}

/// A 400's field errors in words: `name: Must be between 3 and 80 characters.; ...`.
fn field_errors(body: &str) -> String {
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return shorten(body.trim());
    };
    match &v["error"] {
        Value::String(s) => s.clone(),
        Value::Object(fields) => fields
            .iter()
            .map(|(field, msgs)| {
                let msgs: Vec<String> = match msgs {
                    Value::Array(a) => a
                        .iter()
                        .map(|m| m.as_str().map_or_else(|| m.to_string(), str::to_owned))
                        .collect(),
                    other => vec![other.to_string()],
                };
                format!("{field}: {}", msgs.join(" "))
            })
            .collect::<Vec<_>>()
            .join("; "),
        _ => shorten(body.trim()),
    }
}

/// What an answer of `status` with `body` to a call about `what` (`round AbCd1234`, `tour
/// XyZw5678`) means, in words that say what to do.
pub(crate) fn judge(status: u16, body: String, what: &str) -> Answer {
    let said = || {
        serde_json::from_str::<Value>(&body)
            .ok()
            .and_then(|v| v["error"].as_str().map(str::to_owned))
            .unwrap_or_else(|| shorten(body.trim()))
    };
    match status {
        200..=299 => Answer::Ok(body),
        400 => Answer::Refused(format!(
            "Lichess refused the {what} form ({}): fix those fields",
            field_errors(&body)
        )),
        401 => Answer::Refused(format!(
            "Lichess does not know the token (401 {}): make a new API token with the \
             study:write scope at lichess.org/account/oauth/token and put it in the token file \
             (or the credential lichess-token)",
            said()
        )),
        403 if said().starts_with("Missing scope") => Answer::Refused(format!(
            "the token lacks a scope (403 {}): make a token with study:write (and study:read) \
             at lichess.org/account/oauth/token",
            said()
        )),
        403 => Answer::Refused(format!(
            "Lichess refused the token for {what} (403 {}): its owner must be a contributor \
             of the broadcast (add them in the broadcast's settings), or use the owner's token",
            said()
        )),
        404 => Answer::Refused(format!(
            "Lichess has no {what} (404): check the id, the last part of its URL on \
             lichess.org (8 letters and digits)"
        )),
        429 => Answer::SlowDown(format!(
            "Lichess asks to slow down (429 {}); waiting a minute (a normal account makes \
             about 100 rounds and 10 tours a day)",
            said()
        )),
        _ => Answer::Failed(format!("Lichess answered {status}: {}", said())),
    }
}

/// Send `form` to `url` (form-encoded), or the push `pgn` (text) when `form` is `None`.
pub(crate) async fn post(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    body: Body<'_>,
    what: &str,
) -> Answer {
    let req = client.post(url).bearer_auth(token);
    let req = match body {
        Body::Pgn(pgn) => req
            .header(reqwest::header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(pgn.to_owned()),
        Body::Form(fields) => req
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(encode(fields)),
    };
    answer(req.send().await, what).await
}

async fn answer(sent: reqwest::Result<reqwest::Response>, what: &str) -> Answer {
    match sent {
        Ok(resp) => {
            let status = resp.status().as_u16();
            let body = resp.text().await.unwrap_or_default();
            judge(status, body, what)
        }
        Err(e) => Answer::Failed(match crate::tls::explain(&e, "SSL_CERT_FILE") {
            Some(why) => format!("cannot reach Lichess: {why}"),
            None => format!("cannot reach Lichess: {e}"),
        }),
    }
}

/// What a request carries.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Body<'a> {
    /// A round's games.
    Pgn(&'a str),
    /// A form's fields.
    Form(&'a [(String, String)]),
}

/// `name=value&...`, form-encoded.
pub(crate) fn encode(fields: &[(String, String)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", form_part(k), form_part(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn form_part(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                out.push(char::from(b))
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Set Lichess round `id`'s status (`started`, `finished`) on `server`, leaving its other
/// fields as they are (`?patch=1`).
pub(crate) async fn set_status(
    client: &reqwest::Client,
    server: &str,
    id: &str,
    token: &str,
    status: &str,
) -> Answer {
    let url = format!(
        "{}/broadcast/round/{id}/edit?patch=1",
        server.trim_end_matches('/')
    );
    let form = [("status".to_owned(), status.to_owned())];
    post(
        client,
        &url,
        token,
        Body::Form(&form),
        &format!("round {id}"),
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_answer_says_what_to_do() {
        let a = judge(
            400,
            r#"{"error":{"name":["Must be between 3 and 80 characters."],"delay":["Too long"]}}"#
                .into(),
            "round",
        );
        let Answer::Refused(why) = a else {
            panic!("{a:?}")
        };
        assert!(
            why.contains("delay: Too long; name: Must be between 3 and 80 characters."),
            "{why}"
        );
        for (status, body, words) in [
            (401, r#"{"error":"No such token"}"#, "make a new API token"),
            (
                403,
                r#"{"error":"Missing scope: study:write"}"#,
                "make a token with study:write",
            ),
            (
                403,
                r#"{"error":"You can't do that"}"#,
                "must be a contributor",
            ),
            (404, r#"{"error":"Not found"}"#, "check the id"),
        ] {
            match judge(status, body.into(), "round AbCd1234") {
                Answer::Refused(why) => assert!(why.contains(words), "{status}: {why}"),
                other => panic!("{status}: {other:?}"),
            }
        }
        assert!(matches!(
            judge(429, "{}".into(), "round"),
            Answer::SlowDown(_)
        ));
        assert!(matches!(judge(503, "".into(), "round"), Answer::Failed(_)));
        assert_eq!(judge(200, "{}".into(), "round"), Answer::Ok("{}".into()));
    }

    #[test]
    fn forms_are_encoded() {
        let f = [
            ("name".to_owned(), "Hall Open 2026".to_owned()),
            ("info.tc".to_owned(), "90+30".to_owned()),
        ];
        assert_eq!(encode(&f), "name=Hall+Open+2026&info.tc=90%2B30");
    }
}
