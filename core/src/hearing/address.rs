//! Whom the person speaks to: the NPC they are in conversation with, else the nearest NPC in
//! front of the camera within reach, else nobody.

use glam::Vec3;

use super::settings::ListenSettings;

/// An NPC that may be spoken to: its id and where its head is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Listener<'a> {
    pub id: &'a str,
    pub head: Vec3,
}

/// Where the person is: the camera, and the way it looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Person {
    pub position: Vec3,
    pub forward: Vec3,
}

/// Who the person is in conversation with, remembered between utterances.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Addressing {
    /// The NPC and when (ms on the run's clock) the last exchange with it ended.
    partner: Option<(String, f64)>,
}

impl Addressing {
    /// The NPC an utterance starting at `now_ms` is for. The partner of a recent exchange
    /// keeps the conversation while within reach; otherwise the nearest NPC within reach and
    /// within the cone of the camera's view.
    #[must_use]
    pub fn addressee<'a>(
        &self,
        person: Person,
        listeners: &[Listener<'a>],
        settings: &ListenSettings,
        now_ms: f64,
    ) -> Option<&'a str> {
        let reach = settings.address_reach_m;
        if let Some((id, last_ms)) = &self.partner
            && now_ms - last_ms <= settings.conversation_hold_ms
            && let Some(l) = listeners.iter().find(|l| l.id == id)
            && l.head.distance(person.position) <= reach
        {
            return Some(l.id);
        }
        let forward = person.forward.normalize_or_zero();
        let cos_cone = settings.address_cone_deg.to_radians().cos();
        listeners
            .iter()
            .filter_map(|l| {
                let to = l.head - person.position;
                let d = to.length();
                let ahead = if d > 1e-4 { to.dot(forward) / d } else { 1.0 };
                (d <= reach && ahead >= cos_cone).then_some((d, l.id))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, id)| id)
    }

    /// An exchange with `npc` went on until `now_ms` (the person spoke to it, or it answered).
    pub fn exchanged(&mut self, npc: &str, now_ms: f64) {
        self.partner = Some((npc.to_owned(), now_ms));
    }

    /// The NPC of the last exchange, if any.
    #[must_use]
    pub fn partner(&self) -> Option<&str> {
        self.partner.as_ref().map(|(id, _)| id.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person() -> Person {
        Person {
            position: Vec3::new(0.0, 1.7, 0.0),
            forward: Vec3::NEG_Z,
        }
    }

    fn at(id: &str, x: f32, z: f32) -> Listener<'_> {
        Listener {
            id,
            head: Vec3::new(x, 1.6, z),
        }
    }

    #[test]
    fn the_nearest_npc_in_front_within_reach_is_addressed() {
        let s = ListenSettings::default();
        let a = Addressing::default();
        let ahead = [
            at("Far", 0.0, -3.5),
            at("Near", 0.3, -2.0),
            at("Behind", 0.0, 1.0),
        ];
        assert_eq!(a.addressee(person(), &ahead, &s, 0.0), Some("Near"));
        // To the side (beyond the cone) or too far: nobody.
        let aside = [at("Side", 2.0, -0.5), at("Distant", 0.0, -9.0)];
        assert_eq!(a.addressee(person(), &aside, &s, 0.0), None);
    }

    #[test]
    fn a_recent_partner_keeps_the_conversation_while_within_reach() {
        let s = ListenSettings::default();
        let mut a = Addressing::default();
        let npcs = [at("Elara", 2.5, -0.5), at("Bram", 0.0, -2.0)];
        a.exchanged("Elara", 1_000.0);
        assert_eq!(a.addressee(person(), &npcs, &s, 5_000.0), Some("Elara"));
        // Long after, the one in front is addressed.
        assert_eq!(a.addressee(person(), &npcs, &s, 60_000.0), Some("Bram"));
        // Out of reach, too.
        let gone = [at("Elara", 9.0, 0.0), at("Bram", 0.0, -2.0)];
        assert_eq!(a.addressee(person(), &gone, &s, 5_000.0), Some("Bram"));
        assert_eq!(a.partner(), Some("Elara"));
    }
}
