//! The rating classification of controls (`chessclock_engine::rating`): every vector of
//! `tests/data/rating-vectors.json` (the examples US Chess publishes for rule 5B/5C and FIDE's
//! 60-move formula) gets the rating system and the category the vector says.

use chessclock_engine::notation;
use chessclock_engine::rating::{fide_category, uscf_rating};
use serde_json::Value;

/// The rating vectors.
pub(crate) const RATING_VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/rating-vectors.json"
);

/// Every vector as (input, uscf_rating, fide_category), the expected values as JSON.
pub(crate) fn rating_vectors() -> Vec<(String, Value, Value)> {
    let text = std::fs::read_to_string(RATING_VECTORS).expect("read the rating vectors");
    let doc: Value = serde_json::from_str(&text).expect("the rating vectors are JSON");
    doc["vectors"]
        .as_array()
        .expect("a vectors list")
        .iter()
        .map(|v| {
            (
                v["input"].as_str().expect("an input").to_owned(),
                v["uscf_rating"].clone(),
                v["fide_category"].clone(),
            )
        })
        .collect()
}

#[test]
fn every_rating_vector_is_classified_as_it_says() {
    let vectors = rating_vectors();
    assert!(vectors.len() >= 15, "{} vectors", vectors.len());
    let mut fails = Vec::new();
    for (input, uscf, fide) in vectors {
        let control = notation::parse(&input).expect("the vector parses").control;
        let got_uscf = serde_json::to_value(uscf_rating(&control)).unwrap_or_default();
        let got_fide = serde_json::to_value(fide_category(&control)).unwrap_or_default();
        if got_uscf != uscf {
            fails.push(format!(
                "{input:?}: uscf_rating {got_uscf}, expected {uscf}"
            ));
        }
        if got_fide != fide {
            fails.push(format!(
                "{input:?}: fide_category {got_fide}, expected {fide}"
            ));
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}
