//! The round check's route and page.

use super::*;

#[tokio::test]
async fn the_round_check_is_served_with_the_bridge_s_lichess_check_and_its_page() {
    let source = Fake::two_clocks();
    let (status, text, _) = get(&source, "/api/v1/round/check", &[]).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let r = json_of(&text);
    assert_eq!(r["round"], 1);
    assert_eq!(r["ready"], false, "{r}");
    let boards: Vec<u64> = r["boards"]
        .as_array()
        .expect("boards")
        .iter()
        .map(|b| b["board"].as_u64().expect("board"))
        .collect();
    assert_eq!(boards, [1, 2, 3]);
    let paper = &r["boards"][2];
    assert_eq!(paper["clock"], Value::Null);
    let failed: Vec<&str> = paper["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| c["check"].as_str().expect("name"))
        .collect();
    assert_eq!(failed, ["lichess"], "{paper}");
    let lichess = r["boards"][0]["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "lichess")
        .cloned()
        .expect("board 1's lichess check");
    assert_eq!(lichess["text"], "pushed to Lichess round AbCd1234");

    let (status, page, resp) = get(&source, "/round", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(header_of(&resp, header::CONTENT_TYPE).starts_with("text/html"));
    assert!(
        page.contains("/api/v1/round/check"),
        "the page reads the route"
    );

    let gone = Fake {
        clocks: None,
        ..Fake::two_clocks()
    };
    let (status, text, _) = get(&gone, "/api/v1/round/check", &[]).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{text}");
    assert!(
        json_of(&text)["error"]
            .as_str()
            .is_some_and(|e| e.contains("not on the bus"))
    );
}
