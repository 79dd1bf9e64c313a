//! Live links to the engines users ship in: what an NPC's face and body are this frame,
//! encoded for the protocols those engines receive, and faces captured live decoded from
//! them. Pure encoding and decoding; the sockets are the player's.

pub mod livelink;
pub mod vmc;
pub mod vmc_in;
