//! The stand-in over HTTP: the tokens' answers, the forms, a push.

use super::*;

fn post(base: &str, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
    let mut req = reqwest::blocking::Client::new()
        .post(format!("{base}{path}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.to_owned())
        .timeout(WAIT);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().expect("the stand-in answers");
    let status = resp.status().as_u16();
    (status, resp.json().unwrap_or(Value::Null))
}

#[test]
fn tokens_are_refused_as_lichess_refuses_them() {
    let s = StandIn::start().expect("start");
    s.add_round("AbCd1234");
    let push = "/api/broadcast/round/AbCd1234/push";
    let (status, v) = post(&s.base, push, None, "");
    assert_eq!(
        (status, v["error"].as_str()),
        (401, Some("Missing authorization header"))
    );
    let (status, v) = post(&s.base, push, Some("lip_nope"), "");
    assert_eq!((status, v["error"].as_str()), (401, Some("No such token")));
    let (status, v) = post(&s.base, push, Some("lip_readonly"), "");
    assert_eq!(
        (status, v["error"].as_str()),
        (403, Some("Missing scope: study:write"))
    );
    let (status, v) = post(&s.base, push, Some("lip_stranger"), "");
    assert_eq!(
        (status, v["error"].as_str()),
        (403, Some("You can't do that"))
    );
    let (status, v) = post(
        &s.base,
        "/api/broadcast/round/Nope1234/push",
        Some("lip_testtoken123"),
        "",
    );
    assert_eq!((status, v["error"].as_str()), (404, Some("Not found")));
    let (status, v) = post(
        &s.base,
        push,
        Some("lip_testtoken123"),
        "[White \"A\"]\n[Black \"B\"]\n\n1. e4 *\n",
    );
    assert_eq!(
        (status, v["games"][0]["moves"].as_u64()),
        (200, Some(1)),
        "{v}"
    );
    assert_eq!(s.round("AbCd1234").expect("round").games().len(), 1);
}

#[test]
fn a_tour_and_its_rounds_are_made_from_forms() {
    let s = StandIn::start().expect("start");
    let t = Some("lip_testtoken123");
    let (status, v) = post(&s.base, "/broadcast/new", t, "name=Op");
    assert_eq!(status, 400);
    assert!(v["error"]["name"][0].is_string(), "{v}");
    let (status, v) = post(
        &s.base,
        "/broadcast/new",
        t,
        "name=Hall+Open&info.tc=90%2B30",
    );
    assert_eq!(status, 200, "{v}");
    let tour = v["tour"]["id"].as_str().expect("an id").to_owned();
    assert_eq!(tour.len(), 8);
    assert_eq!(v["tour"]["info"]["tc"], "90+30");
    let (status, v) = post(
        &s.base,
        &format!("/broadcast/{tour}/new"),
        t,
        "name=Round+1&status=new&startsAt=1777777777000",
    );
    assert_eq!(status, 200, "{v}");
    let round = v["round"]["id"].as_str().expect("an id").to_owned();
    assert_eq!(v["round"]["startsAt"], 1_777_777_777_000_u64);
    assert_eq!(v["round"].get("ongoing"), None, "status=new: not started");
    let (status, v) = post(
        &s.base,
        &format!("/broadcast/round/{round}/edit?patch=1"),
        t,
        "status=finished",
    );
    assert_eq!(status, 200, "{v}");
    assert!(v["round"]["finishedAt"].is_u64(), "{v}");
    assert_eq!(v["round"]["name"], "Round 1", "a patch keeps the name");
    let (status, _) = post(
        &s.base,
        &format!("/broadcast/{tour}/new"),
        Some("lip_stranger"),
        "name=Round+2",
    );
    assert_eq!(status, 403);
}
