//! Plain-English explanation of a control.
pub fn explain(_tc: &crate::engine::params::TimeControl) -> Vec<String> {
    Vec::new()
}
