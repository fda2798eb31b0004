import {
  candidateCode,
  cellError,
  ErrorFixLimits,
  errorOfOutputs,
  missingNamePrefix
} from '../edits/errorfix';

const KEY_TRACEBACK = [
  '\u001b[0;31m---------------------------------------------------------------------------\u001b[0m',
  '\u001b[0;31mKeyError\u001b[0m                                  Traceback (most recent call last)',
  'Cell \u001b[0;32mIn[2], line 1\u001b[0m\n\u001b[0;32m----> 1\u001b[0m df[\u001b[38;5;124m"\u001b[39m\u001b[38;5;124mprcie\u001b[39m\u001b[38;5;124m"\u001b[39m]\u001b[38;5;241m.\u001b[39msum()',
  "\u001b[0;31mKeyError\u001b[0m: 'prcie'"
];

describe('cellError', () => {
  it('removes the colours and keeps the traceback as text', () => {
    const e = cellError({ ename: 'KeyError', evalue: "'prcie'", traceback: KEY_TRACEBACK }, 2);
    expect(e.ename).toBe('KeyError');
    expect(e.execution_count).toBe(2);
    expect(e.traceback).not.toContain('\u001b');
    expect(e.traceback).toContain('Cell In[2], line 1\n----> 1 df["prcie"].sum()');
    expect(e.traceback.endsWith("KeyError: 'prcie'")).toBe(true);
  });

  it('keeps the last 20,000 characters of a huge traceback, reading only its end', () => {
    const huge = Array.from(
      { length: 10_000 },
      (_, i) => `\u001b[0;31mframe ${i}\u001b[0m ` + 'x'.repeat(1000)
    );
    huge.push('ValueError: the end');
    const e = cellError({ ename: 'ValueError', evalue: 'the end', traceback: huge }, null);
    expect(e.traceback.length).toBe(ErrorFixLimits.tracebackChars);
    expect(e.traceback.endsWith('ValueError: the end')).toBe(true);
    expect(e.traceback).not.toContain('\u001b');
  });

  it('takes the error output of a cell when the reply is not there', () => {
    expect(
      errorOfOutputs([
        { output_type: 'stream', name: 'stdout', text: 'hi' },
        {
          output_type: 'error',
          ename: 'NameError',
          evalue: "name 'x' is not defined",
          traceback: ['t']
        }
      ])
    ).toEqual({ ename: 'NameError', evalue: "name 'x' is not defined", traceback: ['t'] });
    expect(errorOfOutputs([{ output_type: 'stream', name: 'stdout', text: 'hi' }])).toBeNull();
  });
});

describe('candidateCode', () => {
  it('asks the kernel what keys the dict or frame has for a KeyError', () => {
    const source = 'x = 1\ntotal = df["prcie"].sum()\n';
    expect(candidateCode({ ename: 'KeyError', evalue: "'prcie'", traceback: [] }, source)).toBe(
      'total = df["'
    );
    expect(candidateCode({ ename: 'KeyError', evalue: "'a.b'", traceback: [] }, "d['a.b']")).toBe(
      "d['"
    );
  });

  it('asks what attributes the object has for an AttributeError', () => {
    const evalue = "'DataFrame' object has no attribute 'prcie'";
    expect(
      candidateCode({ ename: 'AttributeError', evalue, traceback: [] }, 'df.prcie.sum()')
    ).toBe('df.');
  });

  it('asks nothing for other errors, or when the cell does not use the name', () => {
    expect(
      candidateCode(
        { ename: 'ZeroDivisionError', evalue: 'division by zero', traceback: [] },
        '1/0'
      )
    ).toBeNull();
    expect(
      candidateCode({ ename: 'KeyError', evalue: "'prcie'", traceback: [] }, 'f()')
    ).toBeNull();
    expect(candidateCode({ ename: 'KeyError', evalue: '0', traceback: [] }, 'd[0]')).toBeNull();
  });
});

describe('missingNamePrefix', () => {
  it('asks for the names that start like the missing one', () => {
    const error = (ename: string, evalue: string) => ({ ename, evalue, traceback: [] });
    expect(missingNamePrefix(error('NameError', "name 'prnt' is not defined"))).toBe('p');
    expect(
      missingNamePrefix(
        error(
          'UnboundLocalError',
          "cannot access local variable 'total' where it is not associated with a value"
        )
      )
    ).toBeNull(); // a local read before it is set: not a name the kernel could complete
    expect(missingNamePrefix(error('KeyError', "'prcie'"))).toBeNull();
  });
});
