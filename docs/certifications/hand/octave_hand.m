% Hand confirmation of the Octave findings (docs/certifications/octave.md),
% against Octave alone (no broadcheck, no worker):
%   octave-cli --norc --quiet docs/certifications/hand/octave_hand.m
1;
function try_show (label, f)
  try
    r = f ();
    printf ('%s -> %s %s: %s\n', label, class (r), mat2str (size (r)), mat2str (r));
  catch e
    printf ('%s -> error: %s\n', label, e.message);
  end
end

printf ('Octave %s\n', OCTAVE_VERSION);
% The rule (manual 19.2 "Broadcasting"): dims compared from the first,
% missing trailing dims are 1.  numpy's [2,3] + [3] is Octave's 3x2 + 3x1.
try_show ('size (zeros (3,2) + zeros (3,1))', @() size (zeros (3, 2) + zeros (3, 1)));
try_show ('zeros (3,2) + zeros (2,1)', @() zeros (3, 2) + zeros (2, 1));

% merge-logical (class a): logical TVAL/FVAL with an array mask
try_show ('merge (logical ([1 0]), logical ([1 1]), logical ([0 0]))', ...
          @() merge (logical ([1 0]), logical ([1 1]), logical ([0 0])));
try_show ('merge (logical ([1 0]), int8 ([1 1]), int8 ([0 0]))', ...
          @() merge (logical ([1 0]), int8 ([1 1]), int8 ([0 0])));
try_show ('merge (logical ([1 0]), true, false)  (scalar TVAL/FVAL)', ...
          @() merge (logical ([1 0]), true, false));
try_show ('merge (logical (zeros (0,1)), false, false)', ...
          @() merge (logical (zeros (0, 1)), false, false));

% merge-scalar-mask (class c): a scalar mask returns one operand whole
try_show ('merge (false, int32 (zeros (2,3)), int32 ([7; 8; 9]))', ...
          @() merge (false, int32 (zeros (2, 3)), int32 ([7; 8; 9])));
try_show ('merge (logical ([1 0 1]), [1 2 3], [4; 5])  (no broadcasting)', ...
          @() merge (logical ([1 0 1]), [1 2 3], [4; 5]));

% int-saturate (class c)
try_show ('uint8 (0) - uint8 (97)', @() uint8 (0) - uint8 (97));
try_show ('int8 (100) + int8 (100)', @() int8 (100) + int8 (100));
try_show ('int32 (2^31 - 1) .* int32 (2)', @() int32 (2^31 - 1) .* int32 (2));

% int-div-rounds (class c)
try_show ('int32 ([7 -7]) ./ int32 (2)', @() int32 ([7 -7]) ./ int32 (2));
try_show ('int32 ([5 -5 0]) ./ int32 (0)', @() int32 ([5 -5 0]) ./ int32 (0));

% numel-overflow (class b): empty, but the other dims multiply past int64
try_show ('zeros (0, 2^40, 2^40, ''int8'')', @() zeros (0, 2^40, 2^40, 'int8'));
try_show ('zeros (2^40, 2^40, 0, ''int8'')', @() zeros (2^40, 2^40, 0, 'int8'));

% Declined by the worker: dims above 2^53 (size () is double)
printf ('size (zeros (0, 9007199254740993)) -> %s\n', sprintf ('%d ', size (zeros (0, 9007199254740993))));
% Declined: logical arithmetic is double
try_show ('true + true', @() true + true);
try_show ('max (true, false)', @() max (true, false));

% max/min and NaN (class c): Octave's max and min ignore NaN
try_show ('max ([NaN 1], [2 NaN])', @() max ([NaN 1], [2 NaN]));
try_show ('min (single (NaN), single (3))', @() min (single (NaN), single (3)));
% max/min of signed zeros: the second operand on a tie
printf ('1 ./ max (0, -0) = %g, 1 ./ max (-0, 0) = %g\n', 1 ./ max (0, -0), 1 ./ max (-0, 0));
printf ('1 ./ min (0, -0) = %g, 1 ./ min (-0, 0) = %g\n', 1 ./ min (0, -0), 1 ./ min (-0, 0));
% & and | on NaN (class c): NaN cannot be converted to logical
try_show ('[NaN 1] & [1 1]', @() [NaN 1] & [1 1]);
try_show ('single (NaN) | false', @() single (NaN) | false);

% Not a broadcheck layout: sparse matrices do not broadcast
try_show ('sparse ([1 0; 0 1]) + sparse ([1 2])', @() sparse ([1 0; 0 1]) + sparse ([1 2]));
try_show ('sparse ([1 0; 0 1]) + [1 2]', @() sparse ([1 0; 0 1]) + [1 2]);
try_show ('size ((1:3) + [1; 2])', @() size ((1:3) + [1; 2]));
