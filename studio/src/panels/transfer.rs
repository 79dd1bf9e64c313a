//! The transfer wizard's window: the project's head and the character's side by side, seen
//! from the front or the side and shaded, with the landmarks the warp goes through. A landmark
//! is dragged to where it belongs; the shapes are then written to a copy of the character's
//! head.

use egui::{Color32, Pos2, Rect, Sense, Stroke, Ui, Vec2, pos2, vec2};
use glam::Vec3;
use npc_core::transfer::{Aspect, FaceView, LANDMARK_NAMES, PartKind, Report, on_surface};

use crate::command::Command;
use crate::file_dialog::Prompt;
use crate::transfer_wizard::{Head, Origin, TransferWizard};

/// The part of a face shown, in eye distances from between the eyes: across from the front,
/// from the back forward from the side, then up.
const SHOWN_ACROSS: (f32, f32) = (-1.6, 1.6);
const SHOWN_DEPTH: (f32, f32) = (-1.9, 0.9);
const SHOWN_UP: (f32, f32) = (-2.3, 1.0);

const FOUND: Color32 = Color32::from_rgb(70, 200, 90);
const GUESSED: Color32 = Color32::from_rgb(240, 160, 40);
const MOVED: Color32 = Color32::from_rgb(70, 160, 255);

/// The wizard's window; returns the file to ask for when the user writes the head.
pub fn window(
    ctx: &egui::Context,
    wizard: &TransferWizard,
    out: &mut Vec<Command>,
) -> Option<Prompt> {
    let mut prompt = None;
    let mut open = true;
    egui::Window::new("Give the head face shapes")
        .open(&mut open)
        .default_size([860.0, 620.0])
        .collapsible(false)
        .show(ctx, |ui| {
            ui.label(format!(
                "The project's head is warped onto {}'s through these landmarks. Drag one to \
                 where it belongs: from the front, the points on the skin stay on it; from the \
                 side, a point's depth is set.",
                wizard.npc
            ));
            ui.horizontal(|ui| {
                for (aspect, label) in [(Aspect::Front, "Front"), (Aspect::Side, "Side")] {
                    if ui
                        .selectable_label(wizard.aspect == aspect, label)
                        .clicked()
                        && wizard.aspect != aspect
                    {
                        out.push(Command::SeeHeadsFrom(aspect));
                    }
                }
                ui.separator();
                legend(ui, FOUND, "found");
                legend(ui, GUESSED, "guessed from proportions");
                legend(ui, MOVED, "moved");
            });
            ui.columns(2, |columns| {
                face(
                    &mut columns[0],
                    wizard,
                    Head::Source,
                    "The project's head",
                    out,
                );
                let target = format!("{}'s head", wizard.npc);
                face(&mut columns[1], wizard, Head::Target, &target, out);
            });
            ui.horizontal(|ui| {
                if ui.button("Write the head with the shapes...").clicked() {
                    prompt = Some(Prompt::TransferShapes);
                }
                if ui.button("Close").clicked() {
                    out.push(Command::CloseTransferWizard);
                }
            });
            if let Some(outcome) = &wizard.outcome {
                ui.label(outcome);
            }
            if let Some(report) = &wizard.report {
                seam_check(ui, report);
            }
        });
    if !open {
        out.push(Command::CloseTransferWizard);
    }
    prompt
}

/// The last transfer's check of the lips, a line per finding.
fn seam_check(ui: &mut Ui, report: &Report) {
    ui.label(format!(
        "Fit: the faces lie {:.1} mm apart (median), {:.1} mm at the 90th percentile.",
        report.surface_distance_median_mm, report.surface_distance_p90_mm
    ));
    let Some(seam) = &report.seam else {
        ui.label("Lips: not checked (the mouth was not found).");
        return;
    };
    let mark = |ok: bool| if ok { "yes" } else { "NO" };
    ui.label(format!(
        "Lips part on jawOpen: {} ({:.1} mm at rest, {:.1} mm open). mouthClose closes them: {} \
         ({:.1} mm). Upper-lip vertices following the jaw: {}.",
        mark(seam.lips_part),
        seam.rest_gap_mm,
        seam.jaw_open_gap_mm,
        mark(seam.mouth_closes),
        seam.jaw_open_mouth_close_gap_mm,
        seam.upper_lip_vertices_following_the_jaw
    ));
}

fn legend(ui: &mut Ui, colour: Color32, what: &str) {
    let (rect, _) = ui.allocate_exact_size(vec2(10.0, 10.0), Sense::hover());
    ui.painter().circle_filled(rect.center(), 4.0, colour);
    ui.label(what);
}

/// From the head's frame (metres) to the screen and back.
struct Projection {
    rect: Rect,
    aspect: Aspect,
    /// Screen points per metre.
    scale: f32,
    /// The point seen at the rect's centre.
    centre: glam::Vec2,
}

impl Projection {
    /// Fits the face's usual extent, and every landmark in `points` (head frame), into `rect`
    /// as seen from `aspect`.
    fn new(rect: Rect, aspect: Aspect, view: &FaceView, points: &[Vec3]) -> Self {
        let d = view.frame.eye_distance;
        let margin = 0.15 * d;
        let across = match aspect {
            Aspect::Front => SHOWN_ACROSS,
            Aspect::Side => SHOWN_DEPTH,
        };
        let (mut low, mut high) = (
            glam::Vec2::new(across.0, SHOWN_UP.0) * d,
            glam::Vec2::new(across.1, SHOWN_UP.1) * d,
        );
        for &p in points {
            let seen = aspect.seen(p);
            low = low.min(seen - margin);
            high = high.max(seen + margin);
        }
        let size = high - low;
        Self {
            rect,
            aspect,
            scale: (rect.width() / size.x).min(rect.height() / size.y),
            centre: 0.5 * (low + high),
        }
    }

    /// From the front the head's left is on the viewer's right; from the side its front is.
    fn screen(&self, p: Vec3) -> Pos2 {
        let c = self.rect.center();
        let seen = self.aspect.seen(p);
        pos2(
            c.x + (seen.x - self.centre.x) * self.scale,
            c.y - (seen.y - self.centre.y) * self.scale,
        )
    }

    /// The point seen at `s` (see [`Aspect::seen`]).
    fn seen(&self, s: Pos2) -> glam::Vec2 {
        let c = self.rect.center();
        glam::Vec2::new(
            self.centre.x + (s.x - c.x) / self.scale,
            self.centre.y - (s.y - c.y) / self.scale,
        )
    }
}

/// One head, shaded, with its landmarks.
fn face(ui: &mut Ui, wizard: &TransferWizard, head: Head, title: &str, out: &mut Vec<Command>) {
    let view = wizard.view(head);
    ui.horizontal(|ui| {
        ui.strong(title);
        let moved = wizard.moved(head).0.len();
        if ui
            .add_enabled(moved > 0, egui::Button::new("Reset"))
            .on_hover_text("put the moved landmarks back where they were found")
            .clicked()
        {
            out.push(Command::ResetLandmarks(head));
        }
    });
    let side = ui
        .available_width()
        .min(ui.available_height() - 40.0)
        .max(120.0);
    let (rect, _) = ui.allocate_exact_size(Vec2::splat(side), Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, Color32::from_gray(28));
    let shown: Vec<(&str, Vec3, Origin)> = LANDMARK_NAMES
        .iter()
        .filter_map(|&name| {
            let (p, origin) = wizard.landmark(head, name)?;
            Some((name, view.frame.local(p), origin))
        })
        .collect();
    let points: Vec<Vec3> = shown.iter().map(|&(_, p, _)| p).collect();
    let projection = Projection::new(rect, wizard.aspect, view, &points);
    painter.add(shaded(view, &projection));
    for (name, local, origin) in shown {
        let at = projection.screen(local);
        let id = ui.scope_id().with(("landmark", head, name));
        let response = ui
            .interact(
                Rect::from_center_size(at, Vec2::splat(14.0)),
                id,
                Sense::drag(),
            )
            .on_hover_text(describe(name, origin));
        if response.dragged()
            && let Some(pointer) = response.interact_pointer_pos()
        {
            out.push(Command::MoveLandmark {
                head,
                name: name.to_owned(),
                to: projection.seen(pointer).to_array(),
                seen: wizard.aspect,
            });
        }
        let colour = match origin {
            Origin::Found => FOUND,
            Origin::Guessed => GUESSED,
            Origin::Moved => MOVED,
        };
        let radius = if response.hovered() || response.dragged() {
            6.0
        } else {
            4.0
        };
        if on_surface(name) || name.starts_with("eye_") {
            painter.circle(at, radius, colour, Stroke::new(1.0, Color32::BLACK));
        } else {
            // A joint inside the head: a ring.
            painter.circle_stroke(at, radius, Stroke::new(2.0, colour));
        }
    }
}

fn describe(name: &str, origin: Origin) -> String {
    let how = match origin {
        Origin::Found => "found",
        Origin::Guessed => "guessed from the face's proportions",
        Origin::Moved => "moved",
    };
    let depth = if on_surface(name) {
        "stays on the skin when moved from the front"
    } else {
        "keeps its depth when moved from the front"
    };
    format!("{name} ({how}; {depth})")
}

/// The face's triangles that face the viewer, farthest first, lit from the viewer.
fn shaded(view: &FaceView, projection: &Projection) -> egui::Mesh {
    let mut mesh = egui::Mesh::default();
    for t in view.drawn(projection.aspect) {
        let facing = t.facing(projection.aspect);
        if facing <= 0.0 {
            continue;
        }
        let light = 0.25 + 0.75 * facing;
        let base = match t.kind {
            PartKind::Soft => [225.0, 190.0, 170.0],
            PartKind::Eye => [235.0, 235.0, 240.0],
            PartKind::Teeth => [245.0, 240.0, 220.0],
        };
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let colour = {
            let [r, g, b] = base.map(|c: f32| (c * light) as u8);
            Color32::from_rgb(r, g, b)
        };
        #[allow(clippy::cast_possible_truncation)]
        let first = mesh.vertices.len() as u32;
        for p in t.corners {
            mesh.colored_vertex(projection.screen(p), colour);
        }
        mesh.add_triangle(first, first + 1, first + 2);
    }
    mesh
}
