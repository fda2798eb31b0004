import './base.css';
import './models.css';
