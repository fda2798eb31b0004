import './base.css';
import './models.css';
import './statistics.css';
