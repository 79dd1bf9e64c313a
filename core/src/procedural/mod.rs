//! The project's own default content, made by code.

pub mod body;
pub mod generate;
pub mod head;
pub mod scene;
pub mod sky;
