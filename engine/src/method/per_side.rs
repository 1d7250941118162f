//! A method per side (`W{..} B{..}` with two different kinds of method, e.g. an increment
//! for White and byo-yomi for Black): each side is timed by its own method, which keeps that
//! side's state only. Only methods whose sides do not interact can be mixed (not hourglass,
//! phased swing, double flag or count-up: `rules` refuses them).

use super::{Adjusted, Apply, Boundary, Method, Timing};
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, Phase};

/// White's method and Black's; side `i` is always asked of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PerSide {
    pub(crate) sides: Box<[Timing; 2]>,
}

/// Side `i`'s own method.
macro_rules! own {
    ($per_side:expr, $i:ident, $($call:tt)*) => {
        $per_side.sides[$i].$($call)*
    };
}

impl Method for PerSide {
    super::forward!(own);
}
