//! The stand-in's endpoints: each request routed to its answer as Lichess gives it, the
//! tokens' checks (401, 403 with the OAuth headers), the daily limits (429), and the tour
//! and round endpoints acting on the state (pushes through [`relay`](super::relay), forms
//! through [`forms`](super::forms)).
//!
//! Answers only: serving the connections and what tests read are the stand-in's (`mod.rs`).

use serde_json::{Value, json};

use super::relay::Round;
use super::{Request, State, TOKENS, Tour, forms, now_ms, slug};

/// Tours a user may create in a day.
const TOURS_A_DAY: u32 = 10;
/// Rounds a user may create in a day.
const ROUNDS_A_DAY: u32 = 100;
/// Rounds a tour may have.
const ROUNDS_A_TOUR: usize = 64;

type Answer = (u16, Vec<(String, String)>, String);

fn answer(status: u16, body: Value) -> Answer {
    (status, Vec::new(), body.to_string())
}

fn not_found() -> Answer {
    answer(404, json!({"error": "Not found"}))
}

impl State {
    /// 8 letters and digits, new.
    fn id(&mut self) -> String {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        loop {
            self.next_id = self
                .next_id
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let mut x = self.next_id;
            let id: String = (0..8)
                .map(|_| {
                    let c = ALPHABET[(x % 62) as usize];
                    x /= 62;
                    char::from(c)
                })
                .collect();
            if !self.rounds.contains_key(&id) && !self.tours.contains_key(&id) {
                return id;
            }
        }
    }

    /// The user of the request's token, if it has `scope`; else the 401 or 403 answer.
    fn user(&self, req: &Request, scope: &str) -> Result<String, Answer> {
        let Some(auth) = req.header("authorization") else {
            return Err(answer(
                401,
                json!({"error": "Missing authorization header"}),
            ));
        };
        let token = auth.strip_prefix("Bearer ").unwrap_or_default().trim();
        let Some((_, user, scopes)) = TOKENS.iter().find(|(t, _, _)| *t == token) else {
            return Err(answer(401, json!({"error": "No such token"})));
        };
        if !scopes.contains(&scope) {
            return Err((
                403,
                vec![
                    ("X-OAuth-Scopes".into(), scopes.join(",")),
                    ("X-Accepted-OAuth-Scopes".into(), scope.into()),
                ],
                json!({"error": format!("Missing scope: {scope}")}).to_string(),
            ));
        }
        Ok((*user).to_owned())
    }

    fn forbidden() -> Answer {
        answer(403, json!({"error": "You can't do that"}))
    }

    pub(super) fn answer(&mut self, req: &Request) -> Answer {
        let (path, query) = req.path.split_once('?').unwrap_or((&req.path, ""));
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let patch = query.split('&').any(|q| q == "patch=1");
        let form: forms::Form = url::form_urlencoded::parse(req.body.as_bytes())
            .into_owned()
            .collect();
        match (req.method.as_str(), parts.as_slice()) {
            ("POST", ["api", "broadcast", "round", id, "push"]) => self.push(req, id),
            ("POST", ["broadcast", "new"]) => self.new_tour(req, &form),
            ("POST", ["broadcast", "round", id, "edit"]) => self.edit_round(req, id, &form, patch),
            ("POST", ["broadcast", tour, "edit"]) => self.edit_tour(req, tour, &form),
            ("POST", ["broadcast", tour, "new"]) => self.new_round(req, tour, &form),
            ("POST", ["api", "broadcast", "round", id, "reset"]) => self.reset(req, id),
            ("GET", ["api", "broadcast", "my-rounds"]) => self.my_rounds(req),
            ("GET", ["api", "broadcast", tour]) => self.get_tour(req, tour),
            _ => not_found(),
        }
    }

    /// The user may write to `tour` (its owner).
    fn may_write(&self, user: &str, tour: &str) -> bool {
        self.tours.get(tour).is_some_and(|t| t.owner == user)
    }

    fn push(&mut self, req: &Request, id: &str) -> Answer {
        if let Some(status) = self.faults.pop_front() {
            return answer(status, json!({"error": "injected fault"}));
        }
        let user = match self.user(req, "study:write") {
            Ok(u) => u,
            Err(a) => return a,
        };
        let Some(tour) = self.rounds.get(id).map(|r| r.tour.clone()) else {
            return not_found();
        };
        if !self.may_write(&user, &tour) {
            return Self::forbidden();
        }
        let tc = self
            .tours
            .get(&tour)
            .and_then(|t| t.fields.get("info.tc").cloned());
        let round = self.rounds.get_mut(id).expect("the round");
        answer(200, round.push(&req.body, tc.as_deref(), now_ms()))
    }

    fn count(&mut self, user: &str, tours: u32, rounds: u32) -> Result<(), Answer> {
        let c = self.created.entry(user.to_owned()).or_default();
        if c.0 + tours > TOURS_A_DAY || c.1 + rounds > ROUNDS_A_DAY {
            return Err(answer(
                429,
                json!({"error": "Too many requests. Try again later."}),
            ));
        }
        c.0 += tours;
        c.1 += rounds;
        Ok(())
    }

    fn new_tour(&mut self, req: &Request, form: &forms::Form) -> Answer {
        let user = match self.user(req, "study:write") {
            Ok(u) => u,
            Err(a) => return a,
        };
        let fields = match forms::tour(form) {
            Ok(f) => f,
            Err(e) => return answer(400, forms::error_answer(&e)),
        };
        if let Err(a) = self.count(&user, 1, 0) {
            return a;
        }
        let id = self.id();
        let name = forms::get(form, "name")
            .unwrap_or_default()
            .trim()
            .to_owned();
        let tour = Tour {
            id: id.clone(),
            slug: slug(&name),
            name,
            owner: user,
            created_at: now_ms(),
            fields,
            rounds: Vec::new(),
        };
        let json = tour.json(&self.base);
        self.tours.insert(id, tour);
        answer(200, json!({"tour": json, "rounds": []}))
    }

    fn edit_tour(&mut self, req: &Request, id: &str, form: &forms::Form) -> Answer {
        let user = match self.user(req, "study:write") {
            Ok(u) => u,
            Err(a) => return a,
        };
        if !self.tours.contains_key(id) {
            return not_found();
        }
        if !self.may_write(&user, id) {
            return Self::forbidden();
        }
        let fields = match forms::tour(form) {
            Ok(f) => f,
            Err(e) => return answer(400, forms::error_answer(&e)),
        };
        let tour = self.tours.get_mut(id).expect("the tour");
        tour.name = forms::get(form, "name")
            .unwrap_or_default()
            .trim()
            .to_owned();
        tour.fields = fields;
        answer(200, json!({"ok": true}))
    }

    fn round_answer(&self, id: &str, with_games: bool) -> Value {
        let round = &self.rounds[id];
        let tour = &self.tours[&round.tour];
        let mut v = json!({
            "round": round.json(&self.base, &tour.slug),
            "tour": tour.json(&self.base),
            "study": {"chapters": round.games().len()},
        });
        if with_games {
            v["games"] = round
                .games()
                .iter()
                .map(|c| {
                    json!({
                        "name": format!("{} - {}", c.tag("White").unwrap_or("?"), c.tag("Black").unwrap_or("?")),
                        "res": c.result.as_deref().unwrap_or("*"),
                        "ongoing": c.result.is_none(),
                    })
                })
                .collect();
        }
        v
    }

    fn new_round(&mut self, req: &Request, tour: &str, form: &forms::Form) -> Answer {
        let user = match self.user(req, "study:write") {
            Ok(u) => u,
            Err(a) => return a,
        };
        let Some(count) = self.tours.get(tour).map(|t| t.rounds.len()) else {
            return not_found();
        };
        if !self.may_write(&user, tour) {
            return Self::forbidden();
        }
        if count >= ROUNDS_A_TOUR {
            let mut e = forms::FieldErrors::new();
            e.insert(
                "global".into(),
                vec![format!("A tournament has at most {ROUNDS_A_TOUR} rounds.")],
            );
            return answer(400, forms::error_answer(&e));
        }
        let id = self.id();
        let mut round = Round::new(&id, tour, "", now_ms());
        if let Err(e) = forms::round(form, &mut round, false, now_ms()) {
            return answer(400, forms::error_answer(&e));
        }
        if let Err(a) = self.count(&user, 0, 1) {
            return a;
        }
        self.rounds.insert(id.clone(), round);
        if let Some(t) = self.tours.get_mut(tour) {
            t.rounds.push(id.clone());
        }
        answer(200, self.round_answer(&id, false))
    }

    fn edit_round(&mut self, req: &Request, id: &str, form: &forms::Form, patch: bool) -> Answer {
        let user = match self.user(req, "study:write") {
            Ok(u) => u,
            Err(a) => return a,
        };
        let Some(tour) = self.rounds.get(id).map(|r| r.tour.clone()) else {
            return not_found();
        };
        if !self.may_write(&user, &tour) {
            return Self::forbidden();
        }
        let mut round = self.rounds[id].clone();
        if let Err(e) = forms::round(form, &mut round, patch, now_ms()) {
            return answer(400, forms::error_answer(&e));
        }
        self.rounds.insert(id.to_owned(), round);
        answer(200, self.round_answer(id, true))
    }

    fn reset(&mut self, req: &Request, id: &str) -> Answer {
        let user = match self.user(req, "study:write") {
            Ok(u) => u,
            Err(a) => return a,
        };
        let Some(tour) = self.rounds.get(id).map(|r| r.tour.clone()) else {
            return not_found();
        };
        if !self.may_write(&user, &tour) {
            return Self::forbidden();
        }
        if let Some(r) = self.rounds.get_mut(id) {
            r.reset();
        }
        answer(200, json!({"ok": true}))
    }

    fn get_tour(&mut self, req: &Request, id: &str) -> Answer {
        if let Err(a) = self.user(req, "study:read") {
            return a;
        }
        let Some(tour) = self.tours.get(id) else {
            return not_found();
        };
        let rounds: Vec<Value> = tour
            .rounds
            .iter()
            .filter_map(|r| self.rounds.get(r))
            .map(|r| r.json(&self.base, &tour.slug))
            .collect();
        answer(
            200,
            json!({"tour": tour.json(&self.base), "rounds": rounds}),
        )
    }

    fn my_rounds(&mut self, req: &Request) -> Answer {
        let user = match self.user(req, "study:read") {
            Ok(u) => u,
            Err(a) => return a,
        };
        let mut lines = String::new();
        for tour in self.tours.values().filter(|t| t.owner == user) {
            for r in tour.rounds.iter().filter_map(|r| self.rounds.get(r)) {
                let line = json!({
                    "round": r.json(&self.base, &tour.slug),
                    "tour": tour.json(&self.base),
                    "study": {"writeable": true},
                });
                lines.push_str(&line.to_string());
                lines.push('\n');
            }
        }
        (200, Vec::new(), lines)
    }
}
