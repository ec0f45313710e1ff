-- Stored edges between two nodes that are no longer within one window (run_lev_left).
SELECT e.a, e.b
FROM temp.run_lev_left AS l
CROSS JOIN main._webdedup_edges AS e ON e.a = l.a AND e.b = l.b;
