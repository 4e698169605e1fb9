module flop (input g_tick, input g_a, output reg y);
  always @(posedge g_tick) y <= g_a;
endmodule
