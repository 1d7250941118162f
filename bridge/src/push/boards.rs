//! `boards` of a `[[lichess]]` table: which board numbers of the round the table pushes
//! (`"1-100"`, `"101-150"`, `"1-20,41-60"`), and the checks across tables at start: a board
//! in two tables, a table of more boards than Lichess takes in one round.
//!
//! Owns the set, its spelling and those checks. Pure: no IO.

use std::fmt;
use std::ops::RangeInclusive;

use super::MAX_GAMES;

/// A set of board numbers, as ranges in ascending order that neither overlap nor touch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct BoardSet {
    ranges: Vec<RangeInclusive<u32>>,
}

impl BoardSet {
    /// Read `"1-100"`, `"7"`, `"1-20,41-60"` (spaces allowed around the parts).
    pub(crate) fn parse(text: &str) -> Result<BoardSet, String> {
        let bad = |why: &str| {
            format!(
                "{:?} is not a set of boards: {why}; write board numbers and ranges such as \
                 \"1-100\", \"101-150\" or \"1-20,41-60\"",
                crate::settings::shorten(text)
            )
        };
        let number = |s: &str| -> Result<u32, String> {
            match s.trim().parse::<u32>() {
                Ok(0) => Err(bad("boards are numbered from 1")),
                Ok(n) => Ok(n),
                Err(_) => Err(bad(&format!("{:?} is not a board number", s.trim()))),
            }
        };
        let mut ranges: Vec<RangeInclusive<u32>> = Vec::new();
        for part in text.split(',') {
            if part.trim().is_empty() {
                return Err(bad("a part is empty"));
            }
            let range = match part.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (number(a)?, number(b)?);
                    if a > b {
                        return Err(bad(&format!("{a}-{b} runs backwards")));
                    }
                    a..=b
                }
                None => {
                    let n = number(part)?;
                    n..=n
                }
            };
            ranges.push(range);
        }
        ranges.sort_by_key(|r| *r.start());
        let mut merged: Vec<RangeInclusive<u32>> = Vec::new();
        for r in ranges {
            match merged.last_mut() {
                Some(last) if *r.start() <= last.end().saturating_add(1) => {
                    if r.end() > last.end() {
                        *last = *last.start()..=*r.end();
                    }
                }
                _ => merged.push(r),
            }
        }
        Ok(BoardSet { ranges: merged })
    }

    /// Whether board `board` is in the set.
    pub(crate) fn contains(&self, board: u32) -> bool {
        self.ranges.iter().any(|r| r.contains(&board))
    }

    /// How many boards the set holds.
    pub(crate) fn len(&self) -> u64 {
        self.ranges
            .iter()
            .map(|r| u64::from(*r.end()) - u64::from(*r.start()) + 1)
            .sum()
    }

    /// The lowest board number both sets hold, if any.
    pub(crate) fn first_shared(&self, other: &BoardSet) -> Option<u32> {
        self.ranges
            .iter()
            .flat_map(|a| {
                other.ranges.iter().filter_map(move |b| {
                    let lo = *a.start().max(b.start());
                    let hi = *a.end().min(b.end());
                    (lo <= hi).then_some(lo)
                })
            })
            .min()
    }
}

impl fmt::Display for BoardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match r.start() == r.end() {
                true => write!(f, "{}", r.start())?,
                false => write!(f, "{}-{}", r.start(), r.end())?,
            }
        }
        Ok(())
    }
}

impl<'de> serde::Deserialize<'de> for BoardSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<BoardSet, D::Error> {
        let text = String::deserialize(d)?;
        BoardSet::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// The checks across the tables' `boards` (`sets[i]`: table i's, `None` when it takes every
/// board): one that holds more boards than Lichess takes in a round, and a board two tables
/// give. `Err((i, why))`: table i is wrong.
pub(crate) fn check(sets: &[Option<&BoardSet>]) -> Result<(), (usize, String)> {
    for (i, set) in sets.iter().enumerate() {
        let Some(set) = set else { continue };
        let n = set.len();
        if n > MAX_GAMES as u64 {
            let first = set.ranges.first().map_or(1, |r| *r.start());
            let split = first.saturating_add(MAX_GAMES as u32);
            return Err((
                i,
                format!(
                    "lichess[{i}].boards = \"{set}\" takes {n} boards, and Lichess takes at most \
                     {MAX_GAMES} games in a round: split them over two [[lichess]] tables, each \
                     with its own Lichess round, e.g. boards = \"{first}-{}\" and boards = \
                     \"{split}-...\"",
                    split - 1
                ),
            ));
        }
    }
    for (i, a) in sets.iter().enumerate() {
        for (j, b) in sets.iter().enumerate().skip(i + 1) {
            if let (Some(a), Some(b)) = (a, b)
                && let Some(board) = a.first_shared(b)
            {
                return Err((
                    j,
                    format!(
                        "board {board} is in both lichess[{i}].boards = \"{a}\" and \
                         lichess[{j}].boards = \"{b}\": give each board to one table, so that \
                         its game goes to one Lichess round"
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_are_numbers_and_ranges_merged_in_order() {
        let s = BoardSet::parse(" 41-60, 1-20 ,21").expect("a set");
        assert_eq!(s.to_string(), "1-21,41-60");
        assert_eq!(s.len(), 41);
        assert!(s.contains(1) && s.contains(21) && s.contains(60));
        assert!(!s.contains(22) && !s.contains(0) && !s.contains(61));
        assert_eq!(BoardSet::parse("7").expect("one").to_string(), "7");
        assert_eq!(BoardSet::parse("1-10,5-12").expect("overlap").len(), 12);
    }

    #[test]
    fn a_bad_set_says_what_and_how() {
        for (bad, why) in [
            ("", "a part is empty"),
            ("1-", "\"\" is not a board number"),
            ("a-b", "\"a\" is not a board number"),
            ("10-1", "10-1 runs backwards"),
            ("0-5", "numbered from 1"),
            ("1,,2", "a part is empty"),
        ] {
            let e = BoardSet::parse(bad).expect_err(bad);
            assert!(e.contains(why) && e.contains("\"1-100\""), "{bad}: {e}");
        }
    }

    #[test]
    fn two_tables_with_one_board_and_a_table_past_the_limit_are_refused() {
        let a = BoardSet::parse("1-100").expect("a");
        let b = BoardSet::parse("101-150").expect("b");
        let c = BoardSet::parse("150-160").expect("c");
        assert_eq!(check(&[Some(&a), Some(&b), None]), Ok(()));
        let (i, e) = check(&[Some(&a), Some(&b), Some(&c)]).expect_err("150 twice");
        assert_eq!(i, 2);
        assert!(
            e.contains("board 150 is in both lichess[1].boards = \"101-150\" and lichess[2].boards = \"150-160\""),
            "{e}"
        );
        let big = BoardSet::parse("1-150").expect("big");
        let (i, e) = check(&[None, Some(&big)]).expect_err("too many");
        assert_eq!(i, 1);
        assert!(
            e.contains("takes 150 boards")
                && e.contains("boards = \"1-100\" and boards = \"101-..."),
            "{e}"
        );
    }
}
