//! A small offline checker for udev rules files (bookworm's udevadm has no `verify`).
//!
//! Owns syntax checks only: every line is blank, a comment, or comma-separated
//! `KEY[{attr}]OP"value"` items with a known key and an operator that key accepts, and every
//! `GOTO` has a `LABEL`. It does not evaluate rules against devices.

/// Keys that only match.
const MATCH_KEYS: &[&str] = &[
    "ACTION",
    "DEVPATH",
    "KERNEL",
    "KERNELS",
    "SUBSYSTEM",
    "SUBSYSTEMS",
    "DRIVER",
    "DRIVERS",
    "ATTRS",
    "TAGS",
    "RESULT",
    "TEST",
    "SYMLINK",
    "PROGRAM",
];
/// Keys that only assign.
const ASSIGN_KEYS: &[&str] = &[
    "GOTO", "LABEL", "GROUP", "OWNER", "MODE", "NAME", "RUN", "IMPORT", "OPTIONS",
];
/// Keys that do both.
const BOTH_KEYS: &[&str] = &["ENV", "TAG", "ATTR", "SYMLINK"];
/// Keys that take an `{attribute}`.
const ATTR_KEYS: &[&str] = &["ATTR", "ATTRS", "ENV", "TEST", "IMPORT", "RUN"];

/// One parsed item of a rule line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The key, e.g. `ATTRS`.
    pub key: String,
    /// The attribute in braces, e.g. `idVendor`.
    pub attr: Option<String>,
    /// The operator: `==`, `!=`, `=`, `+=`, `-=` or `:=`.
    pub op: String,
    /// The value without quotes.
    pub value: String,
}

/// Parse one non-comment line into items, or say what is wrong with it.
pub fn parse_line(line: &str) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        let key_end = rest
            .find(|c: char| !(c.is_ascii_uppercase() || c == '_'))
            .unwrap_or(rest.len());
        let key = &rest[..key_end];
        if key.is_empty() {
            return Err(format!("expected a KEY at {rest:?}"));
        }
        rest = &rest[key_end..];
        let mut attr = None;
        if let Some(after) = rest.strip_prefix('{') {
            let close = after
                .find('}')
                .ok_or_else(|| format!("{key}: unclosed '{{'"))?;
            attr = Some(after[..close].to_owned());
            rest = &after[close + 1..];
        }
        let op = ["==", "!=", "+=", "-=", ":=", "="]
            .into_iter()
            .find(|op| rest.starts_with(op))
            .ok_or_else(|| {
                format!("{key}: expected an operator (==, !=, =, +=, -=, :=) at {rest:?}")
            })?;
        rest = &rest[op.len()..];
        let body = rest
            .strip_prefix('"')
            .ok_or_else(|| format!("{key}: the value must be in double quotes"))?;
        let close = body
            .find('"')
            .ok_or_else(|| format!("{key}: unterminated quoted value"))?;
        let value = body[..close].to_owned();
        rest = body[close + 1..].trim_start();
        check_item(key, attr.as_deref(), op)?;
        items.push(Item {
            key: key.to_owned(),
            attr,
            op: op.to_owned(),
            value,
        });
        if rest.is_empty() {
            break;
        }
        rest = rest
            .strip_prefix(',')
            .ok_or_else(|| format!("expected ',' between items at {rest:?}"))?
            .trim_start();
        if rest.is_empty() {
            return Err("trailing ','".to_owned());
        }
    }
    Ok(items)
}

fn check_item(key: &str, attr: Option<&str>, op: &str) -> Result<(), String> {
    let known = MATCH_KEYS.contains(&key) || ASSIGN_KEYS.contains(&key) || BOTH_KEYS.contains(&key);
    if !known {
        return Err(format!("unknown key {key}"));
    }
    if ATTR_KEYS.contains(&key) != attr.is_some() && !(key == "RUN" || key == "IMPORT") {
        return Err(match attr {
            Some(a) => format!("{key} takes no {{{a}}}"),
            None => format!("{key} needs an {{attribute}}"),
        });
    }
    let is_match = op == "==" || op == "!=";
    if is_match && ASSIGN_KEYS.contains(&key) {
        return Err(format!("invalid operator {op} for {key} (it only assigns)"));
    }
    if !is_match && MATCH_KEYS.contains(&key) && !BOTH_KEYS.contains(&key) {
        return Err(format!("invalid operator {op} for {key} (it only matches)"));
    }
    if (key == "GOTO" || key == "LABEL") && op != "=" {
        return Err(format!("{key} needs '='"));
    }
    Ok(())
}

/// Check a whole rules file; returns every problem as `line N: ...`.
pub fn check_rules(text: &str) -> Result<Vec<Vec<Item>>, Vec<String>> {
    let mut problems = Vec::new();
    let mut rules = Vec::new();
    let mut logical = String::new();
    let mut start_line = 0;
    for (i, raw) in text.lines().enumerate() {
        if logical.is_empty() {
            start_line = i + 1;
            let t = raw.trim_start();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
        }
        if let Some(cont) = raw.strip_suffix('\\') {
            logical.push_str(cont);
            continue;
        }
        logical.push_str(raw);
        match parse_line(&logical) {
            Ok(items) => rules.push(items),
            Err(e) => problems.push(format!("line {start_line}: {e}")),
        }
        logical.clear();
    }
    if !logical.is_empty() {
        problems.push(format!(
            "line {start_line}: file ends inside a continued line"
        ));
    }
    let labels: Vec<&str> = rules
        .iter()
        .flatten()
        .filter(|it| it.key == "LABEL")
        .map(|it| it.value.as_str())
        .collect();
    for goto in rules.iter().flatten().filter(|it| it.key == "GOTO") {
        if !labels.contains(&goto.value.as_str()) {
            problems.push(format!("GOTO=\"{}\" has no matching LABEL", goto.value));
        }
    }
    if problems.is_empty() {
        Ok(rules)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_typical_rules() {
        let text = "# c\n\nSUBSYSTEM!=\"tty\", GOTO=\"end\"\nATTRS{idVendor}==\"045b\", ENV{X}=\"1\", \\\n  TAG+=\"systemd\"\nLABEL=\"end\"\n";
        let rules = check_rules(text).expect("valid");
        assert_eq!(rules.len(), 3);
        assert_eq!(
            rules[1][2],
            Item {
                key: "TAG".into(),
                attr: None,
                op: "+=".into(),
                value: "systemd".into()
            }
        );
    }

    #[test]
    fn rejects_common_mistakes() {
        let cases = [
            ("ATTRS{idVendor}=\"045b\"", "invalid operator = for ATTRS"),
            ("GROUP==\"dialout\"", "invalid operator == for GROUP"),
            ("SUBSYSTEM==tty", "double quotes"),
            ("ENV{X}=\"1\" TAG+=\"s\"", "expected ','"),
            ("FOO=\"1\"", "unknown key FOO"),
            ("ATTRS==\"1\"", "needs an {attribute}"),
            ("KERNEL==\"tty*\",", "trailing ','"),
            ("GOTO=\"nowhere\"", "no matching LABEL"),
        ];
        for (text, want) in cases {
            let problems = check_rules(text).expect_err(text);
            assert!(
                problems.iter().any(|p| p.contains(want)),
                "{text}: {problems:?}"
            );
        }
    }
}
