//! Runs checked udev rules (from [`crate::udev::check_rules`]) against a described device, the
//! way udevd applies them on an "add" or "remove" event, so tests can ask what the project's
//! rules do for two identical boards on one machine, for a gadget that is not a board, or on
//! removal.
//!
//! Owns a small subset of udev semantics, enough for `udev/70-chessclockd.rules`: matching on
//! ACTION, KERNEL, SUBSYSTEM, ENV and on one parent's SUBSYSTEMS/ATTRS/KERNELS/DRIVERS;
//! patterns with `*`, `?` and `|`; GOTO/LABEL; assigning ENV, SYMLINK, TAG, GROUP, MODE;
//! `IMPORT{builtin}="path_id"`; the substitutions `%k`, `%n`, `%%` and `$env{KEY}`. Anything
//! else is an error, never silently ignored. It does not read /sys or run programs.

use std::collections::BTreeMap;

use crate::udev::Item;

/// One device in the parent chain (the device itself first), as `udevadm info -a` shows it.
#[derive(Debug, Clone, Default)]
pub struct Parent {
    /// KERNELS, e.g. `1-1.2:1.0`.
    pub kernel: String,
    /// SUBSYSTEMS, e.g. `usb`.
    pub subsystem: String,
    /// DRIVERS, e.g. `cdc_acm`.
    pub driver: String,
    /// ATTRS, e.g. `idVendor` -> `045b`.
    pub attrs: BTreeMap<String, String>,
}

/// The device of one uevent.
#[derive(Debug, Clone, Default)]
pub struct Device {
    /// `add`, `change`, `remove`, ...
    pub action: String,
    /// Kernel name, e.g. `ttyACM0`.
    pub kernel: String,
    /// Subsystem, e.g. `tty`.
    pub subsystem: String,
    /// Properties set by earlier rules files (e.g. `ID_PATH` from 60-serial.rules).
    pub env: BTreeMap<String, String>,
    /// What the `path_id` builtin would compute for this device, if anything.
    pub path_id: Option<String>,
    /// The parent chain, nearest first (the USB interface, then the USB device, ...).
    pub parents: Vec<Parent>,
}

/// What the rules did to a device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Properties after the rules (the device's own ones included).
    pub env: BTreeMap<String, String>,
    /// Links under /dev, in the order they were added.
    pub symlinks: Vec<String>,
    /// Tags, e.g. `systemd`.
    pub tags: Vec<String>,
    /// GROUP=, if assigned.
    pub group: Option<String>,
    /// MODE=, if assigned.
    pub mode: Option<String>,
}

/// Apply `rules` to `device`.
pub fn apply(rules: &[Vec<Item>], device: &Device) -> Result<Outcome, String> {
    let mut out = Outcome {
        env: device.env.clone(),
        ..Outcome::default()
    };
    let mut skip_to: Option<String> = None;
    for rule in rules {
        if let Some(label) = &skip_to {
            if rule
                .iter()
                .any(|i| i.key == "LABEL" && i.value == label.as_str())
            {
                skip_to = None;
            }
            continue;
        }
        if !matches(rule, device, &out)? {
            continue;
        }
        for item in rule.iter().filter(|i| !is_match_op(&i.op)) {
            if let Some(label) = assign(item, device, &mut out)? {
                skip_to = Some(label);
            }
        }
    }
    Ok(out)
}

fn is_match_op(op: &str) -> bool {
    op == "==" || op == "!="
}

/// Whether every match item of `rule` holds. The `*S` keys must all hold for one parent.
fn matches(rule: &[Item], device: &Device, out: &Outcome) -> Result<bool, String> {
    let mut parent_items = Vec::new();
    for item in rule.iter().filter(|i| is_match_op(&i.op)) {
        let value = match item.key.as_str() {
            "ACTION" => device.action.clone(),
            "KERNEL" => device.kernel.clone(),
            "SUBSYSTEM" => device.subsystem.clone(),
            "ENV" => out.env.get(attr(item)?).cloned().unwrap_or_default(),
            "SUBSYSTEMS" | "ATTRS" | "KERNELS" | "DRIVERS" => {
                parent_items.push(item);
                continue;
            }
            other => return Err(format!("udev_eval: matching on {other} is not supported")),
        };
        if glob(&item.value, &value)? != (item.op == "==") {
            return Ok(false);
        }
    }
    if parent_items.is_empty() {
        return Ok(true);
    }
    for parent in &device.parents {
        let mut all = true;
        for item in &parent_items {
            let value = match item.key.as_str() {
                "SUBSYSTEMS" => Some(parent.subsystem.as_str()),
                "KERNELS" => Some(parent.kernel.as_str()),
                "DRIVERS" => Some(parent.driver.as_str()),
                _ => parent.attrs.get(attr(item)?).map(String::as_str),
            };
            let hit = match value {
                Some(v) => glob(&item.value, v)? == (item.op == "=="),
                None => false,
            };
            if !hit {
                all = false;
                break;
            }
        }
        if all {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Apply one assignment; returns the label of a GOTO.
fn assign(item: &Item, device: &Device, out: &mut Outcome) -> Result<Option<String>, String> {
    let value = substitute(&item.value, device, out)?;
    match item.key.as_str() {
        "GOTO" => return Ok(Some(value)),
        "LABEL" => {}
        "ENV" => {
            let key = attr(item)?.to_owned();
            let entry = out.env.entry(key).or_default();
            if item.op == "+=" && !entry.is_empty() {
                entry.push(' ');
                entry.push_str(&value);
            } else {
                *entry = value;
            }
        }
        "SYMLINK" => {
            if item.op == "=" || item.op == ":=" {
                out.symlinks.clear();
            }
            out.symlinks
                .extend(value.split_whitespace().map(str::to_owned));
        }
        "TAG" => out.tags.push(value),
        "GROUP" => out.group = Some(value),
        "MODE" => out.mode = Some(value),
        "IMPORT" if item.attr.as_deref() == Some("builtin") && value == "path_id" => {
            if let Some(path) = &device.path_id {
                out.env.insert("ID_PATH".to_owned(), path.clone());
            }
        }
        other => {
            return Err(format!(
                "udev_eval: assigning {other}{} is not supported",
                item.attr
                    .as_deref()
                    .map(|a| format!("{{{a}}}"))
                    .unwrap_or_default()
            ));
        }
    }
    Ok(None)
}

fn attr(item: &Item) -> Result<&str, String> {
    item.attr
        .as_deref()
        .ok_or_else(|| format!("{} needs an {{attribute}}", item.key))
}

/// `%k`, `%n`, `%%`, `$kernel`, `$number`, `$env{KEY}`, `$$`.
fn substitute(text: &str, device: &Device, out: &Outcome) -> Result<String, String> {
    let number: String = {
        let digits = device
            .kernel
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .count();
        device.kernel[device.kernel.len() - digits..].to_owned()
    };
    let mut result = String::new();
    let mut rest = text;
    while let Some(pos) = rest.find(['%', '$']) {
        result.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        let (piece, used) = if let Some(after) = tail.strip_prefix("$env{") {
            let close = after
                .find('}')
                .ok_or_else(|| format!("unclosed $env{{ in {text:?}"))?;
            let v = out.env.get(&after[..close]).cloned().unwrap_or_default();
            (v, 5 + close + 1)
        } else if tail.starts_with("%k") || tail.starts_with("$kernel") {
            let used = if tail.starts_with("%k") { 2 } else { 7 };
            (device.kernel.clone(), used)
        } else if tail.starts_with("%n") || tail.starts_with("$number") {
            let used = if tail.starts_with("%n") { 2 } else { 7 };
            (number.clone(), used)
        } else if tail.starts_with("%%") || tail.starts_with("$$") {
            (tail[..1].to_owned(), 2)
        } else {
            return Err(format!(
                "udev_eval: substitution at {tail:?} in {text:?} is not supported"
            ));
        };
        result.push_str(&piece);
        rest = &tail[used..];
    }
    result.push_str(rest);
    Ok(result)
}

/// udev's patterns: alternatives separated by `|`, each with `*` and `?`.
pub fn glob(pattern: &str, value: &str) -> Result<bool, String> {
    if pattern.contains('[') {
        return Err(format!(
            "udev_eval: character classes in {pattern:?} are not supported"
        ));
    }
    Ok(pattern.split('|').any(|alt| {
        let p: Vec<char> = alt.chars().collect();
        let v: Vec<char> = value.chars().collect();
        glob_chars(&p, &v)
    }))
}

fn glob_chars(p: &[char], v: &[char]) -> bool {
    match p.split_first() {
        None => v.is_empty(),
        Some(('*', rest)) => (0..=v.len()).any(|i| glob_chars(rest, &v[i..])),
        Some(('?', rest)) => !v.is_empty() && glob_chars(rest, &v[1..]),
        Some((c, rest)) => v.first() == Some(c) && glob_chars(rest, &v[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::udev::check_rules;

    #[test]
    fn patterns_follow_udev() {
        assert_eq!(glob("DGT*", "DGT Projects"), Ok(true));
        assert_eq!(glob("?*", ""), Ok(false));
        assert_eq!(glob("?*", "x"), Ok(true));
        assert_eq!(glob("ttyACM*|ttyUSB*", "ttyUSB3"), Ok(true));
        assert_eq!(glob("ttyACM*|ttyUSB*", "ttyS0"), Ok(false));
        assert!(glob("tty[0-9]", "tty1").is_err());
    }

    #[test]
    fn goto_skips_to_its_label_and_parents_match_together() {
        let rules = check_rules(concat!(
            "SUBSYSTEMS==\"usb\", ATTRS{idVendor}==\"045b\", ENV{HIT}=\"1\"\n",
            "ENV{HIT}!=\"1\", GOTO=\"end\"\n",
            "SYMLINK+=\"x/%k\", ENV{W}+=\"a\", ENV{W}+=\"b-$env{HIT}\"\n",
            "LABEL=\"end\"\n",
        ))
        .expect("valid");
        let mut dev = Device {
            action: "add".into(),
            kernel: "ttyACM3".into(),
            subsystem: "tty".into(),
            ..Device::default()
        };
        // The vendor is on a parent whose subsystem is not usb: no match.
        dev.parents = vec![
            Parent {
                subsystem: "usb".into(),
                ..Parent::default()
            },
            Parent {
                subsystem: "pci".into(),
                attrs: [("idVendor".to_owned(), "045b".to_owned())].into(),
                ..Parent::default()
            },
        ];
        let out = apply(&rules, &dev).expect("applies");
        assert!(out.symlinks.is_empty(), "{out:?}");
        dev.parents[1].subsystem = "usb".into();
        let out = apply(&rules, &dev).expect("applies");
        assert_eq!(out.symlinks, vec!["x/ttyACM3".to_owned()]);
        assert_eq!(out.env["W"], "a b-1");
    }

    #[test]
    fn unsupported_keys_are_errors() {
        let rules = check_rules("RUN+=\"/bin/true\"\n").expect("valid syntax");
        let err = apply(&rules, &Device::default()).expect_err("RUN unsupported");
        assert!(err.contains("RUN"), "{err}");
    }
}
