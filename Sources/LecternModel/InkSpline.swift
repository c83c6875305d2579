/// Smooths a stroke: a Catmull-Rom spline through the sampled points, as the cubic Bézier
/// segments cairo draws. The curve passes through every sample (unlike a polyline it has no
/// corners at them), so a few samples of a fast finger still make a round curve.
public enum InkSpline {
    public struct Point: Equatable, Sendable {
        public var x: Double, y: Double
        public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    }

    /// One cubic segment: from the previous segment's end (or the start) to `to`.
    public struct Segment: Equatable, Sendable {
        public var c1: Point, c2: Point, to: Point
    }

    /// The start and the segments of the spline through `points` (uniform Catmull-Rom,
    /// the ends' tangents from their one neighbour). Repeated points are dropped first.
    public static func beziers(_ input: [Point]) -> (start: Point, segments: [Segment])? {
        var p: [Point] = []
        p.reserveCapacity(input.count)
        for q in input where p.last != q { p.append(q) }
        guard let first = p.first else { return nil }
        guard p.count > 1 else { return (first, []) }
        var segments: [Segment] = []
        segments.reserveCapacity(p.count - 1)
        for i in 0..<(p.count - 1) {
            let p0 = p[max(0, i - 1)], p1 = p[i], p2 = p[i + 1], p3 = p[min(p.count - 1, i + 2)]
            let c1 = Point(p1.x + (p2.x - p0.x) / 6, p1.y + (p2.y - p0.y) / 6)
            let c2 = Point(p2.x - (p3.x - p1.x) / 6, p2.y - (p3.y - p1.y) / 6)
            segments.append(Segment(c1: c1, c2: c2, to: p2))
        }
        return (first, segments)
    }

    /// The point at `t` (0…1) of a cubic from `a`.
    public static func evaluate(from a: Point, _ s: Segment, t: Double) -> Point {
        let u = 1 - t
        let b0 = u * u * u, b1 = 3 * u * u * t, b2 = 3 * u * t * t, b3 = t * t * t
        return Point(
            b0 * a.x + b1 * s.c1.x + b2 * s.c2.x + b3 * s.to.x,
            b0 * a.y + b1 * s.c1.y + b2 * s.c2.y + b3 * s.to.y)
    }
}
