//! A vector of slots with a free list: stable `usize` keys, reused after
//! removal. States, process-tree nodes and memory objects live in slabs.

#[derive(Clone, Debug)]
pub struct Slab<T> {
    slots: Vec<Option<T>>,
    free: Vec<usize>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { slots: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slab<T> {
    pub fn insert(&mut self, v: T) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.slots[i] = Some(v);
                i
            }
            None => {
                self.slots.push(Some(v));
                self.slots.len() - 1
            }
        }
    }

    pub fn remove(&mut self, i: usize) -> Option<T> {
        let v = self.slots.get_mut(i)?.take()?;
        self.free.push(i);
        Some(v)
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        self.slots.get(i)?.as_ref()
    }

    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.slots.get_mut(i)?.as_mut()
    }

    /// Live entries.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keys of the live entries.
    pub fn keys(&self) -> impl Iterator<Item = usize> + '_ {
        self.slots.iter().enumerate().filter(|(_, s)| s.is_some()).map(|(i, _)| i)
    }

    pub fn clear(&mut self) {
        self.slots.clear();
        self.free.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::Slab;

    #[test]
    fn keys_are_reused_after_removal() {
        let mut s = Slab::default();
        let (a, b) = (s.insert('a'), s.insert('b'));
        assert_eq!(s.remove(a), Some('a'));
        assert_eq!(s.remove(a), None);
        assert_eq!(s.insert('c'), a);
        assert_eq!((s.get(b), s.len()), (Some(&'b'), 2));
        assert_eq!(s.keys().collect::<Vec<_>>(), vec![a, b]);
    }
}
