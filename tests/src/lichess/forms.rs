//! The stand-in's tour and round forms (`../shared/spec/lichess-broadcast.md` §3): their
//! fields, the 400 answer naming each bad field (`{"error":{"FIELD":["message"]}}`), and what
//! creating and editing a round does to its status (no `status`, or `started`, starts it at
//! once; `new` keeps it unstarted; an edit without `?patch=1` overwrites every field).
//!
//! Test fixture; the words of the messages are the stand-in's own.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::relay::Round;

/// A form as sent: every `name=value` pair in order.
pub type Form = Vec<(String, String)>;

/// The fields in error, each with its messages.
pub type FieldErrors = BTreeMap<String, Vec<String>>;

/// The 400 answer of `errors`.
pub fn error_answer(errors: &FieldErrors) -> Value {
    json!({ "error": errors })
}

/// A field's value (the last one given).
pub fn get<'a>(form: &'a Form, name: &str) -> Option<&'a str> {
    form.iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

fn add(errors: &mut FieldErrors, field: &str, message: &str) {
    errors
        .entry(field.to_owned())
        .or_default()
        .push(message.to_owned());
}

/// `name`, 3 to 80 characters, required.
fn check_name(form: &Form, errors: &mut FieldErrors) {
    match get(form, "name").map(|n| n.trim().chars().count()) {
        None | Some(0) => add(errors, "name", "This field is required."),
        Some(n) if !(3..=80).contains(&n) => {
            add(errors, "name", "Must be between 3 and 80 characters.")
        }
        _ => {}
    }
}

/// A tour's form checked: the fields to keep (every `info.*`, `markdown`, `visibility`, ...).
pub fn tour(form: &Form) -> Result<BTreeMap<String, String>, FieldErrors> {
    let mut errors = FieldErrors::new();
    check_name(form, &mut errors);
    if let Some(v) = get(form, "visibility")
        && !matches!(v, "public" | "unlisted" | "private")
    {
        add(&mut errors, "visibility", "Invalid value.");
    }
    for field in ["info.fideTC", "info.fideTc"] {
        if let Some(v) = get(form, field)
            && !matches!(v, "standard" | "rapid" | "blitz")
        {
            add(&mut errors, field, "Invalid value.");
        }
    }
    if form
        .iter()
        .filter(|(n, _)| n.starts_with("tiebreaks"))
        .count()
        > 5
    {
        add(&mut errors, "tiebreaks", "At most 5 tiebreaks.");
    }
    if get(form, "players").is_some_and(|p| p.lines().count() > 1000) {
        add(&mut errors, "players", "At most 1000 players.");
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(form.iter().cloned().collect())
}

/// Apply a round's form to `round` (created just now, or edited; `patch`: only the fields
/// given change) at `now_ms`; `Err`: the fields in error, and nothing changed.
pub fn round(form: &Form, round: &mut Round, patch: bool, now_ms: u64) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    if !patch || get(form, "name").is_some() {
        check_name(form, &mut errors);
    }
    let number = |field: &str, max: u64, errors: &mut FieldErrors| -> Option<u64> {
        let v = get(form, field)?;
        match v.trim().parse::<u64>() {
            Ok(n) if n <= max => Some(n),
            _ => {
                add(errors, field, &format!("Must be a number from 0 to {max}."));
                None
            }
        }
    };
    let starts_at = number("startsAt", u64::MAX, &mut errors);
    let delay = number("delay", 3600, &mut errors);
    let status = get(form, "status");
    if let Some(s) = status
        && !matches!(s, "new" | "started" | "finished")
    {
        add(&mut errors, "status", "Invalid value.");
    }
    let mut scoring = serde_json::Map::new();
    for side in ["white", "black"] {
        for what in ["win", "draw"] {
            let field = format!("customScoring.{side}.{what}");
            let Some(v) = get(form, &field) else { continue };
            match v.trim().parse::<f64>() {
                Ok(n) if (0.0..=10.0).contains(&n) => {
                    let entry = scoring.entry(side).or_insert_with(|| json!({}));
                    entry[what] = json!(n);
                }
                _ => add(&mut errors, &field, "Must be a number from 0 to 10."),
            }
        }
    }
    let boolean = |field: &str| get(form, field).map(|v| matches!(v, "true" | "1" | "on"));
    if !errors.is_empty() {
        return Err(errors);
    }
    if let Some(name) = get(form, "name") {
        round.name = name.trim().to_owned();
        round.slug = super::slug(&round.name);
    }
    if !patch || starts_at.is_some() {
        round.starts_at = starts_at;
    }
    if !patch || delay.is_some() {
        round.delay = delay.map(|d| d as u32);
    }
    if !patch || boolean("startsAfterPrevious").is_some() {
        round.starts_after_previous = boolean("startsAfterPrevious").unwrap_or(false);
    }
    if !patch || boolean("rated").is_some() {
        round.rated = boolean("rated").unwrap_or(false);
    }
    if !patch || !scoring.is_empty() {
        round.custom_scoring = (!scoring.is_empty()).then_some(Value::Object(scoring));
    }
    round.upstream = ["syncUrl", "syncUrls", "syncIds", "syncUsers"]
        .iter()
        .any(|f| get(form, f).is_some_and(|v| !v.trim().is_empty()))
        || (patch && round.upstream);
    match status {
        Some("new") => {
            round.started = false;
            round.finished_at = None;
        }
        Some("finished") => {
            round.started = true;
            round.finished_at = round.finished_at.or(Some(now_ms));
        }
        Some(_) => {
            round.started = true;
            round.finished_at = None;
        }
        // No status: a patch keeps it; a create or a whole edit starts the round and
        // clears its finish.
        None if patch => {}
        None => {
            round.started = true;
            round.finished_at = None;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> Form {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_round_created_without_status_new_starts_at_once() {
        let mut r = Round::new("AbCd1234", "t", "R", 0);
        round(&form(&[("name", "Round 1")]), &mut r, false, 1).expect("ok");
        assert!(r.started);
        let mut r = Round::new("AbCd1234", "t", "R", 0);
        round(
            &form(&[("name", "Round 1"), ("status", "new")]),
            &mut r,
            false,
            1,
        )
        .expect("ok");
        assert!(!r.started);
        round(&form(&[("status", "finished")]), &mut r, true, 5).expect("patch");
        assert_eq!(
            (r.started, r.finished_at, r.name.as_str()),
            (true, Some(5), "Round 1")
        );
        round(&form(&[("name", "Round 1")]), &mut r, false, 6).expect("a whole edit");
        assert_eq!(r.finished_at, None, "a missing status clears the finish");
    }

    #[test]
    fn bad_fields_are_named_and_change_nothing() {
        let mut r = Round::new("AbCd1234", "t", "Round 1", 0);
        let e = round(
            &form(&[
                ("name", "R"),
                ("delay", "4000"),
                ("customScoring.white.win", "11"),
            ]),
            &mut r,
            false,
            1,
        )
        .expect_err("bad");
        assert_eq!(
            e.keys().collect::<Vec<_>>(),
            ["customScoring.white.win", "delay", "name"]
        );
        assert_eq!(r.name, "Round 1");
        let e = tour(&form(&[("name", "Open"), ("visibility", "secret")])).expect_err("bad");
        assert!(e.contains_key("visibility"));
        assert!(tour(&form(&[])).expect_err("no name").contains_key("name"));
    }
}
