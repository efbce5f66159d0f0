//! Images of a large layer taken in pieces, so that no single BDD operation runs far past a
//! time limit. The BDD engines cannot interrupt an operation, and the image of a large layer
//! under one cluster of the relation can take longer than the time a limit leaves: the run
//! then ends with "time limit reached inside one BDD operation" seconds after the limit.
//! [`ImagePace`] measures the seconds per node of the layer that images took; where one image
//! of the next layer is predicted to take more than half the time left, the layer is cut into
//! pieces on the first variables of its support ([`pieces`]): the image of the layer is the
//! union of the pieces' images, and the limits are checked between pieces
//! ([`cluster_images`], the images of a layer of a game compiled once).

use symgame_bdd::{BddEngine, BddResult};
use symgame_limits::{Guard, StopReason};

use crate::disjunction::or_all_checked;
use crate::game::SymbolicGame;
use crate::interrupt::Interrupt;

/// At most 2^MAX_DEPTH pieces a layer.
const MAX_DEPTH: u32 = 6;

/// The shortest time a piece is planned to take, in seconds (cutting finer costs more than
/// the limit gains).
const MIN_GRAIN: f64 = 0.1;

/// The measured pace of images: seconds per node of the set whose image was taken.
#[derive(Clone, Debug, Default)]
pub(crate) struct ImagePace {
    /// The slowest image of the last layer (seconds per node of its set).
    per_node: Option<f64>,
}

impl ImagePace {
    /// Into how many top variables of its support a set of `nodes` nodes is cut: 0 unless
    /// one image of it is predicted to take more than half the time `guard` leaves; then
    /// enough that a piece is predicted to take at most a quarter of that time (at least
    /// [`MIN_GRAIN`] seconds), at most [`MAX_DEPTH`]. 0 without a time limit or measurement.
    pub(crate) fn depth(&self, nodes: usize, guard: &Guard) -> u32 {
        let (Some(rate), Some(left)) = (self.per_node, guard.time_left()) else {
            return 0;
        };
        let predicted = rate * nodes as f64;
        let left = left.as_secs_f64();
        if predicted <= left / 2.0 {
            return 0;
        }
        let grain = (left / 4.0).max(MIN_GRAIN);
        let mut depth = 0;
        while depth < MAX_DEPTH && predicted / f64::from(1u32 << depth) > grain {
            depth += 1;
        }
        depth
    }

    /// Sets the pace to the slowest of a layer's images, `per_node` seconds per node.
    pub(crate) fn set(&mut self, per_node: f64) {
        self.per_node = Some(per_node);
    }

    /// Raises the pace to at least `per_node` seconds per node.
    fn at_least(&mut self, per_node: f64) {
        self.per_node = Some(self.per_node.map_or(per_node, |p| p.max(per_node)));
    }
}

/// `s` cut into at most 2^`depth` pairwise disjoint non-empty sets whose union is `s`: the
/// largest piece over 1/2^`depth` of `s`'s nodes is split on the first variable of its support
/// that splits it (both sides non-empty), again and again. A variable the set fixes (the
/// turn bits of a layer, often its first variables) splits nothing, and a piece is never split
/// on a variable it does not read (the halves would be as large as the piece).
///
/// The limits of `guard` are checked before each cut (each passes over the piece it cuts).
pub(crate) fn pieces<E: BddEngine>(
    e: &E,
    s: &E::Bdd,
    depth: u32,
    guard: &Guard,
) -> Result<Vec<E::Bdd>, Interrupt> {
    let most = 1usize << depth.min(MAX_DEPTH);
    let n = e.node_count(s);
    let target = n / most;
    // (nodes, piece, whether it may still split)
    let mut out = vec![(n, s.clone(), true)];
    while out.len() < most {
        let Some(i) = (0..out.len())
            .filter(|&i| out[i].2 && out[i].0 > target)
            .max_by_key(|&i| out[i].0)
        else {
            break;
        };
        guard.check()?;
        match split(e, &out[i].1)? {
            Some((lo, hi)) => {
                out[i] = (e.node_count(&lo), lo, true);
                out.push((e.node_count(&hi), hi, true));
            }
            None => out[i].2 = false,
        }
    }
    Ok(out.into_iter().map(|(_, p, _)| p).collect())
}

/// `p` split on the first variable of its support with states on both sides, if any.
fn split<E: BddEngine>(e: &E, p: &E::Bdd) -> BddResult<Option<(E::Bdd, E::Bdd)>> {
    for v in e.support(p) {
        let hi = e.and(p, &e.literal(v, true))?;
        if e.is_false(&hi) {
            continue;
        }
        let lo = e.and(p, &e.literal(v, false))?;
        if !e.is_false(&lo) {
            return Ok(Some((lo, hi)));
        }
    }
    Ok(None)
}

/// The successors of the non-terminal states `expand` of a layer of a game compiled once:
/// state by state where the race of [`SymbolicGame::explicit_layers`] predicts that cheaper
/// (then `images` stays empty), otherwise [`cluster_images`], timed for the race.
pub(crate) fn layer_image<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    (expand, pace): (&E::Bdd, &mut ImagePace),
    guard: &Guard,
    images: &mut Vec<(usize, E::Bdd)>,
) -> Result<Option<E::Bdd>, Interrupt> {
    let (e, race) = (g.engine(), g.explicit_layers());
    if !e.is_false(expand) {
        let started = std::time::Instant::now();
        if let Some((_, image)) = race.try_layer(e, g.encoding(), None, expand, guard, false)? {
            // No image was measured on this layer: its seconds per node state by state stand
            // in, so that the next layer's images (of a larger set) are cut into pieces where
            // they may outlast the limit (nineBoardTicTacToePie: one image of the layer after
            // an explicit one ran 5 s past the limit).
            let nodes = e.node_count(expand).max(1) as f64;
            pace.at_least(started.elapsed().as_secs_f64() / nodes);
            return Ok(Some(image));
        }
        // An engine that stops its operations at the limit loses nothing by trying: the
        // prediction errs both ways, and the time left has no other use.
        if !e.stops_inside() && race.symbolic_hopeless(e.node_count(expand), guard) {
            return Err(Interrupt::Stop(StopReason::TimeLimit));
        }
    }
    let started = std::time::Instant::now();
    match cluster_images(g, (expand, pace), guard, images) {
        Ok(found) => {
            race.symbolic_took(e.node_count(expand), started.elapsed().as_secs_f64());
            Ok(found)
        }
        // Past what the symbolic way can do: state by state, with the time left.
        Err(Interrupt::Stop(StopReason::OutOfMemory)) => {
            images.clear();
            e.gc();
            match race.try_layer(e, g.encoding(), None, expand, guard, true)? {
                Some((_, image)) => Ok(Some(image)),
                None => Err(Interrupt::Stop(StopReason::OutOfMemory)),
            }
        }
        Err(err) => Err(err),
    }
}

/// The successors of `expand` under each cluster (those with successors, into `images`) and
/// their union; `None` if a state of `expand` breaks an assumed group. Where `pace` predicts an
/// image past the time left, each is taken in pieces of `expand` ([`pieces`]).
pub(crate) fn cluster_images<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    (expand, pace): (&E::Bdd, &mut ImagePace),
    guard: &Guard,
    images: &mut Vec<(usize, E::Bdd)>,
) -> Result<Option<E::Bdd>, Interrupt> {
    let e = g.engine();
    let nodes = e.node_count(expand);
    let pieces: Vec<(E::Bdd, usize)> = match pace.depth(nodes, guard) {
        0 => vec![(expand.clone(), nodes)],
        depth => (pieces(e, expand, depth, guard)?.into_iter())
            .map(|p| {
                let n = e.node_count(&p);
                (p, n)
            })
            .collect(),
    };
    let mut slowest = 0f64;
    for (c, p) in g.clusters().iter().enumerate() {
        guard.check()?;
        if let Some(at) = p.breaking_states(e, expand)? {
            g.mark_broken_at(&at);
            return Ok(None);
        }
        let mut parts = Vec::with_capacity(pieces.len());
        for (piece, nodes) in &pieces {
            guard.check()?;
            let started = std::time::Instant::now();
            parts.push(p.image_checked(e, piece, || guard.check().map_err(Interrupt::from))?);
            slowest = slowest.max(started.elapsed().as_secs_f64() / (*nodes).max(1) as f64);
        }
        let img = or_all_checked(e, parts, &|| guard.check().map_err(Interrupt::from))?;
        if !e.is_false(&img) {
            images.push((c, img));
        }
    }
    pace.set(slowest);
    let all = images.iter().map(|(_, b)| b.clone()).collect();
    Ok(Some(or_all_checked(e, all, &|| {
        guard.check().map_err(Interrupt::from)
    })?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use symgame_bdd::{BiodivineEngine, EngineConfig};
    use symgame_limits::Limits;

    /// The pieces of a set are disjoint, their union is the set, and there are at most
    /// 2^depth of them.
    #[test]
    fn pieces_partition_the_set() {
        let e = BiodivineEngine::new(6, &EngineConfig::small()).unwrap();
        // x1 OR (x3 AND NOT x5): depends on x1, x3, x5.
        let s = e
            .or(&e.var(1), &e.and(&e.var(3), &e.nvar(5)).unwrap())
            .unwrap();
        for depth in 0..4 {
            let ps = pieces(&e, &s, depth, &Guard::new(&Limits::default())).unwrap();
            assert!(ps.len() <= 1 << depth, "depth {depth}");
            let mut union = e.constant(false);
            for (i, p) in ps.iter().enumerate() {
                for q in &ps[i + 1..] {
                    assert!(e.is_false(&e.and(p, q).unwrap()), "depth {depth}");
                }
                union = e.or(&union, p).unwrap();
            }
            assert_eq!(union, s, "depth {depth}");
        }
        assert_eq!(
            pieces(&e, &s, 3, &Guard::new(&Limits::default()))
                .unwrap()
                .len(),
            2,
            "x1 (reads no other variable), or not x1 with x3 and not x5 (a single cube)"
        );
        // A set that fixes its first variable (x0, as a layer fixes its turn bits) is cut on
        // the next one.
        let fixed = e.and(&e.var(0), &s).unwrap();
        let ps = pieces(&e, &fixed, 1, &Guard::new(&Limits::default())).unwrap();
        assert_eq!(ps.len(), 2, "cut on x1, not on the fixed x0");
        assert_eq!(e.or(&ps[0], &ps[1]).unwrap(), fixed);
    }

    /// No cut without a time limit or a measurement, nor while an image is predicted to take
    /// at most half the time left; past that, deeper the slower the image is predicted.
    #[test]
    fn the_depth_follows_the_predicted_image_time() {
        let no_limit = Limits::default();
        let limit = Limits {
            time_limit: Some(std::time::Duration::from_secs(100)),
            ..Default::default()
        };
        let mut pace = ImagePace::default();
        assert_eq!(
            pace.depth(1_000_000, &Guard::new(&limit)),
            0,
            "nothing measured"
        );
        pace.set(1e-4);
        assert_eq!(pace.depth(1_000_000, &Guard::new(&no_limit)), 0, "no limit");
        let guard = Guard::new(&limit);
        // 10 s, 40 s, 90 s and a day predicted, with about 100 s left.
        assert_eq!(pace.depth(100_000, &guard), 0);
        assert_eq!(pace.depth(400_000, &guard), 0);
        assert_eq!(pace.depth(900_000, &guard), 2, "90 s in pieces of 22.5 s");
        assert_eq!(pace.depth(864_000_000, &guard), MAX_DEPTH);
    }
}
