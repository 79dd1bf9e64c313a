//! A list written afresh every frame whose memory, and what it held, stays from frame to
//! frame: room made in it is not zeroed first. A crowd's joint palettes and active targets
//! are megabytes; zeroing the room for them was a pass over all of it on one core each
//! frame, before the cores that fill it could start.

use std::ops::Deref;

/// A list of this frame's items over memory kept from earlier frames.
#[derive(Clone, Debug, Default)]
pub struct ReusedList<T> {
    items: Vec<T>,
    used: usize,
}

impl<T: Copy + Default> ReusedList<T> {
    /// Empties the list, keeping its memory and what it held.
    pub fn clear(&mut self) {
        self.used = 0;
    }

    /// `n` more items at the end, for the caller to write: each holds what the same place
    /// held in an earlier frame (the default where the list never reached so far).
    pub fn room(&mut self, n: usize) -> &mut [T] {
        let start = self.used;
        self.used += n;
        if self.items.len() < self.used {
            self.items.resize(self.used, T::default());
        }
        &mut self.items[start..self.used]
    }

    pub fn push(&mut self, item: T) {
        if let Some(slot) = self.items.get_mut(self.used) {
            *slot = item;
        } else {
            self.items.push(item);
        }
        self.used += 1;
    }

    pub fn extend_from_slice(&mut self, items: &[T]) {
        self.room(items.len()).copy_from_slice(items);
    }

    pub fn extend(&mut self, items: impl IntoIterator<Item = T>) {
        for item in items {
            self.push(item);
        }
    }
}

impl<T> Deref for ReusedList<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items[..self.used]
    }
}

impl<T: PartialEq> PartialEq for ReusedList<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for ReusedList<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        **self == other[..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cleared_list_shows_only_what_is_written_after() {
        let mut list = ReusedList::default();
        list.extend([1, 2, 3, 4]);
        assert_eq!(list, vec![1, 2, 3, 4]);
        list.clear();
        assert!(list.is_empty());
        list.push(7);
        list.extend_from_slice(&[8, 9]);
        assert_eq!(list, vec![7, 8, 9]);
        // Room over memory an earlier frame wrote holds what it wrote, beyond it the default.
        list.clear();
        assert_eq!(list.room(2), [7, 8]);
        list.clear();
        list.push(5);
        assert_eq!(list.room(5), [8, 9, 4, 0, 0]);
        assert_eq!(list.len(), 6);
    }
}
