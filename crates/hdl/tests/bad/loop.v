module loop (input g_a, input e_b, output y);
  wire p, q;
  assign p = q ^ g_a;
  assign q = p & e_b;
  assign y = q;
endmodule
