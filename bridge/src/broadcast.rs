//! `chessclock-bridge --make-broadcast NAME --pairings FILE...`: the Lichess broadcast made
//! from the event's pairings, instead of filling in lichess.org's forms: a tour (its name,
//! time control, and its players with their FIDE ids, titles and ratings), then one push
//! round per pairings file, in order, created with `status=new` (a round created without it
//! starts at once). It prints the broadcast's URL, each round's id, and the `rounds` line the
//! bridge's `[[lichess]]` table reads them from.
//!
//! Uses the first `[[lichess]]` table's token and server; every refusal is said as what to
//! do ([`crate::push::client::judge`]). Never logs the token; touches no clock.

use std::fmt::Write as _;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use chessclock_game::pairings::{self, Pairing, Player};
use serde_json::Value;

use crate::push::client::{self, Answer};
use crate::settings::{Args, Settings};

/// One line of the tour's `players` field: `name / FIDE id / title / rating`.
fn player_line(p: &Player) -> String {
    let fide = p.fide_id.map(|f| f.to_string()).unwrap_or_default();
    let elo = p.elo.map(|e| e.to_string()).unwrap_or_default();
    format!("{} / {fide} / {} / {elo}", p.name, p.title)
        .trim_end_matches([' ', '/'])
        .to_owned()
}

/// The tour's `players` lines: each player of the rounds once (by FIDE id, else name) who
/// has a FIDE id, title or rating to give.
fn players(rounds: &[Vec<Pairing>]) -> String {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for p in rounds
        .iter()
        .flatten()
        .flat_map(|pair| [&pair.white, &pair.black])
    {
        let known = p.fide_id.is_some() || !p.title.is_empty() || p.elo.is_some();
        let key = p.fide_id.map_or_else(|| p.name.clone(), |f| f.to_string());
        if known && !p.name.is_empty() && seen.insert(key) {
            out.push(player_line(p));
        }
    }
    out.join("\n")
}

/// The answer's JSON, or what to do.
fn json(answer: Answer) -> Result<Value> {
    match answer {
        Answer::Ok(body) => serde_json::from_str(&body).context("Lichess's answer is not JSON"),
        Answer::SlowDown(why) | Answer::Refused(why) | Answer::Failed(why) => bail!("{why}"),
    }
}

/// Make the broadcast `args` asks for; what to print.
pub(crate) async fn make(args: &Args, settings: &Settings) -> Result<String> {
    let name = args.make_broadcast.clone().unwrap_or_default();
    let (Some(table), Some(token)) = (settings.lichess.first(), settings.lichess_tokens.first())
    else {
        bail!(
            "--make-broadcast uses the token and server of a [[lichess]] table: add one to \
             bridge.toml (round = any 8-character id until the rounds exist, token_file = ...)"
        );
    };
    if token.is_empty() {
        bail!(
            "--make-broadcast needs the token in a file here: set token_file in the \
             [[lichess]] table (the service's credential cannot be read outside it)"
        );
    }
    if args.pairings.is_empty() {
        bail!("give each round's pairings: --pairings round1.csv --pairings round2.csv ...");
    }
    let mut rounds = Vec::new();
    for (i, file) in args.pairings.iter().enumerate() {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read the pairings {}", file.display()))?;
        let round = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let read = pairings::parse(&text, None, round).map_err(|e| {
            let lines: Vec<String> = e.0.iter().map(|l| l.to_string()).collect();
            anyhow::anyhow!("{}: {}", file.display(), lines.join("; "))
        })?;
        rounds.push(read);
    }
    let server = table.server.trim_end_matches('/');
    let http = crate::tls::http_client(Duration::from_secs(20), settings.lichess_tls.clone())?;
    let mut form = vec![("name".to_owned(), name.clone())];
    if let Some(tc) = &args.time_control {
        form.push(("info.tc".to_owned(), tc.clone()));
    }
    let players = players(&rounds);
    if !players.is_empty() {
        form.push(("players".to_owned(), players));
    }
    let made = client::post(
        &http,
        &format!("{server}/broadcast/new"),
        token,
        client::Body::Form(&form),
        "tour",
    )
    .await;
    let tour = json(made)?;
    let tour_id = tour["tour"]["id"]
        .as_str()
        .context("no tour id in Lichess's answer")?;
    let url = tour["tour"]["url"].as_str().unwrap_or_default();
    let mut out = format!("broadcast {name:?}: {url}\n");
    let mut ids = Vec::new();
    for (i, pairs) in rounds.iter().enumerate() {
        let n = i + 1;
        let form = [
            ("name".to_owned(), format!("Round {n}")),
            ("status".to_owned(), "new".to_owned()),
        ];
        let made = client::post(
            &http,
            &format!("{server}/broadcast/{tour_id}/new"),
            token,
            client::Body::Form(&form),
            &format!("round {n} of tour {tour_id}"),
        )
        .await;
        let round = json(made).with_context(|| {
            format!(
                "round {n} not made; the rounds made so far: {}",
                ids.join(", ")
            )
        })?;
        let id = round["round"]["id"]
            .as_str()
            .context("no round id in Lichess's answer")?
            .to_owned();
        let _ = writeln!(out, "round {n}: {id} ({} boards)", pairs.len());
        ids.push(id);
    }
    let map: Vec<String> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| format!("{} = \"{id}\"", i + 1))
        .collect();
    let _ = writeln!(out, "rounds = {{ {} }}", map.join(", "));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_known_player_is_one_line_with_fide_id_title_and_rating() {
        let csv = "board,white,black,white_fide_id,black_fide_id,white_elo,black_elo\n\
                   1,\"Carlsen, Magnus\",\"Ding, Liren\",1503014,8603677,2830,2780\n\
                   2,\"Club, Player\",\"Other, One\",,,,\n";
        let one = pairings::parse(csv, None, 1).expect("pairings");
        let two = pairings::parse(csv, None, 2).expect("pairings");
        assert_eq!(
            players(&[one, two]),
            "Carlsen, Magnus / 1503014 /  / 2830\nDing, Liren / 8603677 /  / 2780"
        );
    }
}
