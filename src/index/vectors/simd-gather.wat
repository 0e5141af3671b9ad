;; The gather kernel of simd-dot.ts, as simd-dot.ts emits it for rows of 2 groups (16 int8 codes;
;; the query is 16 int16 values). simd-dot.ts assembles these bytes itself (no toolchain at
;; runtime); test/simd-dot-listing.test.ts checks that this listing assembles to exactly its bytes
;; for 1, 2, 3 and 96 groups, the group block below repeated once per group.
;;
;; gather(codes, query, slots, n, out): for each of `n` slot numbers s, out[i] = Σ row[s]·query (i32).
(module
  (import "env" "mem" (memory 1))
  (func $gather (export "gather")
    (param $codes i32)  ;; byte offset of the table's first row of int8 codes
    (param $query i32)  ;; byte offset of the int16 query
    (param $slots i32)  ;; byte offset of the next slot number (int32)
    (param $n i32)      ;; slots left
    (param $out i32)    ;; byte offset of the next int32 result
    (local $sum v128)   ;; four partial sums of the row
    (local $row i32)    ;; byte offset of the slot's row
    block $done
      local.get $n
      i32.eqz
      br_if $done
      loop $next_slot
        ;; the slot's row: codes + s · 8·groups
        local.get $slots
        i32.load
        i32.const 16
        i32.mul
        local.get $codes
        i32.add
        local.set $row
        ;; group 0: 8 codes widened to i16, times 8 query values, pairwise added into 4 i32 lanes
        local.get $row
        v128.load8x8_s align=1
        local.get $query
        v128.load align=2
        i32x4.dot_i16x8_s
        ;; group 1 (and each further group g: code offset 8·g, query offset 16·g), added to the sum
        local.get $row
        v128.load8x8_s offset=8 align=1
        local.get $query
        v128.load offset=16 align=2
        i32x4.dot_i16x8_s
        i32x4.add
        ;; end of the groups
        local.set $sum
        ;; out[i] = the sum of the four lanes
        local.get $out
        local.get $sum
        i32x4.extract_lane 0
        local.get $sum
        i32x4.extract_lane 1
        i32.add
        local.get $sum
        i32x4.extract_lane 2
        i32.add
        local.get $sum
        i32x4.extract_lane 3
        i32.add
        i32.store
        ;; next slot
        local.get $slots
        i32.const 4
        i32.add
        local.set $slots
        local.get $out
        i32.const 4
        i32.add
        local.set $out
        local.get $n
        i32.const 1
        i32.sub
        local.tee $n
        br_if $next_slot
      end
    end))
