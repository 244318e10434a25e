import { Message, MessageHeader } from 'apache-arrow';
import * as A from 'apache-arrow';
console.log(MessageHeader, Object.keys(A).filter(k=>k.includes('Message')));
