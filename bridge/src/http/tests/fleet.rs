//! The router with `fleet = true`: every machine's boards, with their hosts.

use super::*;

/// `uri` of the router with `fleet = true`, following `fleet`: its status and JSON body.
async fn get_fleet(source: &Fake, fleet: &crate::fleet::Shared, uri: &str) -> (StatusCode, Value) {
    let req = Request::builder()
        .uri(uri)
        .body(Body::empty())
        .expect("a request");
    let resp = app(source.clone(), Some(fleet.clone()))
        .oneshot(req)
        .await
        .expect("the router answers");
    let status = resp.status();
    let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20)
        .await
        .expect("the whole body");
    (status, json_of(&String::from_utf8_lossy(&bytes)))
}

#[tokio::test]
async fn with_fleet_the_clocks_are_every_machine_s_boards_with_their_host() {
    let mut fake = Fake::two_clocks();
    let fleet: crate::fleet::Shared = Arc::new(Mutex::new(crate::fleet::Fleet::new("pi1")));
    {
        let mut f = fleet.lock().expect("fleet");
        let mut remote = status(0, 1);
        remote.board = 3;
        remote.name = "gamma".into();
        let json = serde_json::to_vec(&remote).expect("json");
        let now = chessclock_api::monotonic::monotonic_us();
        let topics = chessclock_api::fleet::Topics::new("pi2");
        f.apply(&topics.state(0), &json, now).expect("state");
        f.apply(&topics.status(), b"offline", now).expect("status");
    }
    let boards = |v: &Value| -> Vec<(String, String, bool)> {
        v.as_array()
            .expect("a list")
            .iter()
            .map(|b| {
                let s = |k: &str| b[k].as_str().unwrap_or_default().to_owned();
                (s("host"), s("name"), b["stale"].as_bool().expect("stale"))
            })
            .collect()
    };
    let want = |local: bool| {
        let mut w = vec![];
        if local {
            w.push(("pi1".to_owned(), "beta".to_owned(), false));
            w.push(("pi1".to_owned(), "alpha".to_owned(), false));
        }
        w.push(("pi2".to_owned(), "gamma".to_owned(), true));
        w
    };
    let (code, body) = get_fleet(&fake, &fleet, "/api/v1/clocks").await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(boards(&body), want(true), "{body}");
    assert_eq!(body[2]["problems"][0]["kind"], "stale", "{body}");
    let (code, body) = get_fleet(&fake, &fleet, "/api/v1/fleet").await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(body["host"], "pi1");
    assert!(body["now_us"].as_u64().is_some(), "{body}");
    assert_eq!(boards(&body["boards"]), want(true), "{body}");
    // The page and overlay of the other machine's board 3; of no machine's board 9, a 404.
    let page = |uri: &str| {
        let req = Request::builder()
            .uri(uri)
            .body(Body::empty())
            .expect("a request");
        app(fake.clone(), Some(fleet.clone())).oneshot(req)
    };
    for uri in ["/board/board:3", "/overlay/board:3"] {
        let resp = page(uri).await.expect("an answer");
        assert_eq!(resp.status(), StatusCode::OK, "{uri}");
    }
    let resp = page("/overlay/board:9").await.expect("an answer");
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    // No daemon on this machine: the fleet alone.
    fake.clocks = None;
    fake.hub.daemon_down("gone".into());
    let (code, body) = get_fleet(&fake, &fleet, "/api/v1/clocks").await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(boards(&body), want(false), "{body}");
    let (_, body) = get_fleet(&fake, &fleet, "/api/v1/fleet").await;
    assert_eq!(boards(&body["boards"]), want(false), "{body}");
    // Without fleet = true there is no fleet to read.
    let (code, body, _) = get(&fake, "/api/v1/fleet", &[]).await;
    assert_eq!(code, StatusCode::NOT_FOUND, "{body}");
    assert!(body.contains("fleet = true"), "{body}");
}
